package sweep

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/experiments"
)

// Emit targets.
const (
	EmitSlurm = "slurm"
	EmitK8s   = "k8s"
)

// EmitOptions describe the cluster job that runs a sweep's shards.
type EmitOptions struct {
	// Spec is the spec argument the shards pass to `schedlab sweep` (an embedded ID, or a path
	// that exists on the cluster).
	Spec string
	// Label and Sets are passed through.
	Label string
	Sets  []string
	// Shards is the number of shards (array tasks, or Job completions).
	Shards int
	// Out is the directory the shards write under (shard-<i> each) and the gather writes to.
	Out string
	// Parallel is the number of workers per shard (and the CPUs requested).
	Parallel int
	// Image is the container image with schedlab (k8s).
	Image string
	// Name names the job.
	Name string
}

func (o EmitOptions) sweepArgs(shardExpr string) []string {
	args := []string{"sweep", o.Spec, "--shard", shardExpr + "/" + strconv.Itoa(o.Shards)}
	if o.Label != "" {
		args = append(args, "--label", o.Label)
	}
	for _, s := range o.Sets {
		args = append(args, "--set", s)
	}
	args = append(args, "--parallel", strconv.Itoa(o.Parallel))
	return args
}

func (o EmitOptions) check() error {
	if o.Shards < 1 {
		return fmt.Errorf("%w: --shards %d: want at least 1", experiments.ErrConfig, o.Shards)
	}
	if o.Parallel < 1 {
		return fmt.Errorf("%w: --parallel %d: want at least 1", experiments.ErrConfig, o.Parallel)
	}
	if o.Out == "" || o.Spec == "" {
		return fmt.Errorf("%w: emit: need a spec and an output directory", experiments.ErrConfig)
	}
	return nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// EmitSlurmScript writes a Slurm job-array script: array task i runs shard i/n into
// OUT/shard-i, and the last line of the file's comment says how to gather them (submit with
// `sbatch`, then gather with a dependent job or by hand).
func EmitSlurmScript(w io.Writer, o EmitOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	var parts []string
	for _, a := range o.sweepArgs("${SLURM_ARRAY_TASK_ID}") {
		if strings.Contains(a, "${SLURM_ARRAY_TASK_ID}") {
			parts = append(parts, `"`+a+`"`) // must expand
		} else {
			parts = append(parts, shellQuote(a))
		}
	}
	line := "schedlab " + strings.Join(parts, " ")
	var gather []string
	for i := range o.Shards {
		gather = append(gather, shellQuote(fmt.Sprintf("%s/shard-%d", o.Out, i)))
	}
	_, err := fmt.Fprintf(w, `#!/bin/bash
# Slurm job array for schedlab sweep %[1]s (%[2]d shards), written by schedlab %[3]s.
#   submit:  sbatch %[4]s.slurm
#   gather:  schedlab sweep --gather %[5]s --out %[6]s
# or chain it: sbatch --dependency=afterok:<jobid> --wrap 'schedlab sweep --gather ... --out ...'
#SBATCH --job-name=%[4]s
#SBATCH --array=0-%[7]d
#SBATCH --cpus-per-task=%[8]d
#SBATCH --output=%[6]s/slurm-%%A_%%a.out
set -euo pipefail
mkdir -p %[6]s
exec %[9]s --out %[6]s/shard-"${SLURM_ARRAY_TASK_ID}"
`, o.Spec, o.Shards, experiments.Version, o.Name, strings.Join(gather, " "), shellQuote(o.Out), o.Shards-1, o.Parallel, line)
	return err
}

// EmitK8sJob writes a Kubernetes Indexed Job manifest: completion index i runs shard i/n into
// OUT/shard-i on a volume claim named <name>-results mounted at OUT.
func EmitK8sJob(w io.Writer, o EmitOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	if o.Image == "" {
		return fmt.Errorf("%w: emit k8s: need an image", experiments.ErrConfig)
	}
	args := o.sweepArgs("$(JOB_COMPLETION_INDEX)")
	args = append(args, "--out", o.Out+"/shard-$(JOB_COMPLETION_INDEX)")
	var b strings.Builder
	for _, a := range args {
		fmt.Fprintf(&b, "            - %s\n", strconv.Quote(a))
	}
	_, err := fmt.Fprintf(w, `# Kubernetes Indexed Job for schedlab sweep %[1]s (%[2]d shards), written by schedlab %[3]s.
#   apply:   kubectl apply -f %[4]s-job.yaml
#   gather (on the volume, after the Job completes):
#            schedlab sweep --gather %[5]s/shard-{0..%[6]d} --out %[5]s
apiVersion: batch/v1
kind: Job
metadata:
  name: %[4]s
  labels:
    app.kubernetes.io/name: schedlab
spec:
  completionMode: Indexed
  completions: %[2]d
  parallelism: %[2]d
  backoffLimit: 6
  template:
    metadata:
      labels:
        app.kubernetes.io/name: schedlab
    spec:
      restartPolicy: Never
      containers:
        - name: sweep
          image: %[7]s
          command: ["schedlab"]
          args:
%[8]s          resources:
            requests:
              cpu: "%[9]d"
            limits:
              cpu: "%[9]d"
          volumeMounts:
            - name: results
              mountPath: %[10]s
      volumes:
        - name: results
          persistentVolumeClaim:
            claimName: %[4]s-results
`, o.Spec, o.Shards, experiments.Version, o.Name, o.Out, o.Shards-1, strconv.Quote(o.Image), b.String(), o.Parallel, strconv.Quote(o.Out))
	return err
}

// JobName derives a DNS-1123 job name from a spec ID ("demo/policies" → "schedlab-demo-policies").
func JobName(specID string) string {
	var b strings.Builder
	b.WriteString("schedlab-")
	for _, r := range strings.ToLower(specID) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > 52 {
		s = strings.TrimRight(s[:52], "-")
	}
	return s
}

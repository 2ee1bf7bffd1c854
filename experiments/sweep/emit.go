package sweep

import (
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/experiments"
)

// Emit targets.
const (
	EmitSlurm = "slurm"
	EmitK8s   = "k8s"
)

// ImageUID is the user (and group) the container image runs as: distroless's nonroot. The
// Kubernetes jobs run as it and give the results volume to its group.
const ImageUID = 65532

// EmitOptions describe the cluster jobs that run a sweep's shards and gather them.
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
	// Cache, when set, is a cell cache every shard and the gather share (--cache).
	Cache string
	// Costs, when set, is a previous run whose measured cell times balance the shards (--costs).
	Costs string
	// MaxCells, when set, is passed as --max-cells.
	MaxCells int
	// Image is the container image with schedlab (k8s).
	Image string
	// Claim is the PersistentVolumeClaim holding Out (k8s); "" means <Name>-results.
	Claim string
	// Name names the jobs.
	Name string
}

// SlurmArrayFile, SlurmGatherFile, K8sJobFile and K8sGatherFile name the files an emit writes
// into Out.
func (o EmitOptions) SlurmArrayFile() string  { return o.Name + ".slurm" }
func (o EmitOptions) SlurmGatherFile() string { return o.Name + "-gather.slurm" }
func (o EmitOptions) K8sJobFile() string      { return o.Name + "-job.yaml" }
func (o EmitOptions) K8sGatherFile() string   { return o.Name + "-gather-job.yaml" }

func (o EmitOptions) claim() string {
	if o.Claim != "" {
		return o.Claim
	}
	return o.Name + "-results"
}

// cacheArgs passes the shared cache, if any.
func (o EmitOptions) cacheArgs() []string {
	if o.Cache == "" {
		return nil
	}
	return []string{"--cache", o.Cache}
}

// gatherArgs are the arguments of `schedlab` that gather the shards into Out.
func (o EmitOptions) gatherArgs() []string {
	args := []string{"sweep", "--gather"}
	for i := range o.Shards {
		args = append(args, o.shardDir(strconv.Itoa(i)))
	}
	args = append(args, "--out", o.Out)
	return append(args, o.cacheArgs()...)
}

func (o EmitOptions) shardDir(i string) string { return o.Out + "/shard-" + i }

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

// shellLine joins arguments into a `schedlab` command line for a POSIX shell. Where an
// argument contains marker, the marker becomes the double-quoted expansion expr.
func shellLine(args []string, marker, expr string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if marker == "" || !strings.Contains(a, marker) {
			parts[i] = shellQuote(a)
			continue
		}
		var b strings.Builder
		for j, piece := range strings.Split(a, marker) {
			if j > 0 {
				b.WriteString(`"` + expr + `"`)
			}
			if piece != "" {
				b.WriteString(shellQuote(piece))
			}
		}
		parts[i] = b.String()
	}
	return "schedlab " + strings.Join(parts, " ")
}

// EmitSlurmScript writes a Slurm job-array script: array task i runs shard i/n into
// OUT/shard-i. Its comment says how to submit it with the gather script (EmitSlurmGather) as a
// job that runs once every array task has succeeded.
func EmitSlurmScript(w io.Writer, o EmitOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	const marker = "\x00i\x00"
	line := shellLine(o.shardArgs(marker), marker, "${SLURM_ARRAY_TASK_ID}")
	_, err := fmt.Fprintf(w, `#!/bin/bash
# Slurm job array for schedlab sweep %[1]s (%[2]d shards), written by schedlab %[3]s.
# Submit it with the job that gathers the shards once every array task has succeeded:
#   sbatch --dependency=afterok:$(sbatch --parsable %[4]s) %[5]s
#SBATCH --job-name=%[6]s
#SBATCH --array=0-%[7]d
#SBATCH --cpus-per-task=%[8]d
#SBATCH --output=%[9]s/slurm-%%A_%%a.out
set -euo pipefail
mkdir -p %[9]s
exec %[10]s
`, o.Spec, o.Shards, experiments.Version, shellQuote(o.Out+"/"+o.SlurmArrayFile()), shellQuote(o.Out+"/"+o.SlurmGatherFile()),
		o.Name, o.Shards-1, o.Parallel, shellQuote(o.Out), line)
	return err
}

// shardArgs are the arguments of `schedlab` that run shard marker/n into OUT/shard-marker.
func (o EmitOptions) shardArgs(marker string) []string {
	args := []string{"sweep", o.Spec, "--shard", marker + "/" + strconv.Itoa(o.Shards)}
	if o.Label != "" {
		args = append(args, "--label", o.Label)
	}
	for _, s := range o.Sets {
		args = append(args, "--set", s)
	}
	args = append(args, "--parallel", strconv.Itoa(o.Parallel))
	if o.Costs != "" {
		args = append(args, "--costs", o.Costs)
	}
	if o.MaxCells > 0 {
		args = append(args, "--max-cells", strconv.Itoa(o.MaxCells))
	}
	args = append(args, o.cacheArgs()...)
	return append(args, "--out", o.shardDir(marker))
}

// EmitSlurmGather writes the Slurm batch script that gathers the shards of EmitSlurmScript's
// array into OUT (submit it with --dependency=afterok on the array).
func EmitSlurmGather(w io.Writer, o EmitOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, `#!/bin/bash
# Gathers the %[2]d shards of schedlab sweep %[1]s into %[4]s, written by schedlab %[3]s.
# Submit it after the array, to run once every array task has succeeded:
#   sbatch --dependency=afterok:$(sbatch --parsable %[5]s) %[6]s
#SBATCH --job-name=%[7]s-gather
#SBATCH --cpus-per-task=1
#SBATCH --output=%[4]s/slurm-%%j-gather.out
set -euo pipefail
exec %[8]s
`, o.Spec, o.Shards, experiments.Version, shellQuote(o.Out), shellQuote(o.Out+"/"+o.SlurmArrayFile()), shellQuote(o.Out+"/"+o.SlurmGatherFile()),
		o.Name, shellLine(o.gatherArgs(), "", ""))
	return err
}

// checkK8s checks what the Kubernetes jobs need beyond check: an image, and every path they
// use on the results volume, the only one they mount (at Out).
func (o EmitOptions) checkK8s() error {
	if err := o.check(); err != nil {
		return err
	}
	if o.Image == "" {
		return fmt.Errorf("%w: emit k8s: need an image (--image)", experiments.ErrConfig)
	}
	if !path.IsAbs(o.Out) {
		return fmt.Errorf("%w: emit k8s: --out %s is relative, but the jobs mount the results volume at --out: give the absolute path to mount it at (e.g. /results/%s)", experiments.ErrConfig, o.Out, path.Base(o.Out))
	}
	for _, p := range []struct{ flag, dir string }{{"--cache", o.Cache}, {"--costs", o.Costs}} {
		if p.dir != "" && !strings.HasPrefix(path.Clean(p.dir)+"/", path.Clean(o.Out)+"/") {
			return fmt.Errorf("%w: emit k8s: %s %s is not under --out %s, the only directory on the jobs' results volume", experiments.ErrConfig, p.flag, p.dir, o.Out)
		}
	}
	return nil
}

// EmitK8sJob writes a Kubernetes Indexed Job manifest: completion index i runs shard i/n into
// OUT/shard-i on the PersistentVolumeClaim o.Claim, mounted at OUT.
func EmitK8sJob(w io.Writer, o EmitOptions) error {
	if err := o.checkK8s(); err != nil {
		return err
	}
	const index = "$(JOB_COMPLETION_INDEX)"
	_, err := fmt.Fprintf(w, `# Kubernetes Indexed Job for schedlab sweep %[1]s (%[2]d shards), written by schedlab %[3]s.
# It needs the image (make image) in a registry the cluster pulls from and a ReadWriteMany
# PersistentVolumeClaim named %[4]s for the results (mounted at %[5]s).
# Run it, then the gather:
#   kubectl apply -f %[6]s
#   kubectl wait --for=condition=complete --timeout=168h job/%[7]s
#   kubectl apply -f %[8]s
apiVersion: batch/v1
kind: Job
metadata:
  name: %[7]s
  labels:
    app.kubernetes.io/name: schedlab
    app.kubernetes.io/component: sweep
spec:
  completionMode: Indexed
  completions: %[2]d
  parallelism: %[2]d
  backoffLimit: 6
%[9]s`, o.Spec, o.Shards, experiments.Version, o.claim(), o.Out, o.K8sJobFile(), o.Name, o.K8sGatherFile(),
		o.podTemplate("sweep", o.shardArgs(index), o.Parallel))
	return err
}

// EmitK8sGather writes the Kubernetes Job that gathers the shards of EmitK8sJob's Indexed Job
// on the same volume (apply it once that Job has completed).
func EmitK8sGather(w io.Writer, o EmitOptions) error {
	if err := o.checkK8s(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, `# Kubernetes Job that gathers the %[2]d shards of schedlab sweep %[1]s into %[4]s, written by
# schedlab %[3]s. Apply it once job/%[5]s has completed.
apiVersion: batch/v1
kind: Job
metadata:
  name: %[5]s-gather
  labels:
    app.kubernetes.io/name: schedlab
    app.kubernetes.io/component: gather
spec:
  completions: 1
  backoffLimit: 3
%[6]s`, o.Spec, o.Shards, experiments.Version, o.Out, o.Name, o.podTemplate("gather", o.gatherArgs(), 1))
	return err
}

// podTemplate is a Job's pod template: one container running schedlab with args as the image's
// user, the results claim mounted at Out.
func (o EmitOptions) podTemplate(component string, args []string, cpus int) string {
	var b strings.Builder
	for _, a := range args {
		fmt.Fprintf(&b, "            - %s\n", strconv.Quote(a))
	}
	return fmt.Sprintf(`  template:
    metadata:
      labels:
        app.kubernetes.io/name: schedlab
        app.kubernetes.io/component: %[1]s
    spec:
      restartPolicy: Never
      securityContext:
        runAsNonRoot: true
        runAsUser: %[2]d
        runAsGroup: %[2]d
        fsGroup: %[2]d
      containers:
        - name: %[1]s
          image: %[3]s
          command: ["schedlab"]
          args:
%[4]s          resources:
            requests:
              cpu: "%[5]d"
            limits:
              cpu: "%[5]d"
          volumeMounts:
            - name: results
              mountPath: %[6]s
      volumes:
        - name: results
          persistentVolumeClaim:
            claimName: %[7]s
`, component, ImageUID, strconv.Quote(o.Image), b.String(), cpus, strconv.Quote(o.Out), strconv.Quote(o.claim()))
}

// JobName derives a DNS-1123 job name from a spec ID ("demo/policies" → "schedlab-demo-policies").
// It leaves room for the "-gather" suffix and Kubernetes' pod-name suffixes.
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
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	if len(s) > 45 {
		s = strings.TrimRight(s[:45], "-")
	}
	return s
}

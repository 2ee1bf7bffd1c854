package sweep

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/schedlab/schedlab/internal/testutil"
)

func emitOpts() EmitOptions {
	return EmitOptions{Spec: "demo/policies", Label: "quick", Sets: []string{"engine.cycle_s=5", "policy.params.note=it's"},
		Shards: 4, Out: "/scratch/demo", Parallel: 2, Image: "registry.example/schedlab:0.1.0", Name: JobName("demo/policies")}
}

func TestEmitSlurm(t *testing.T) {
	var b bytes.Buffer
	if err := EmitSlurmScript(&b, emitOpts()); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "emit.slurm.golden"), b.Bytes(), *update)
	s := b.String()
	for _, want := range []string{"#SBATCH --array=0-3", `--shard "${SLURM_ARRAY_TASK_ID}/4"`, `'policy.params.note=it'\''s'`, `--out /scratch/demo/shard-"${SLURM_ARRAY_TASK_ID}"`} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q", want)
		}
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		cmd := exec.Command(bash, "-n")
		cmd.Stdin = &b
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("bash -n: %v\n%s", err, out)
		}
	}
}

func TestEmitK8s(t *testing.T) {
	var b bytes.Buffer
	if err := EmitK8sJob(&b, emitOpts()); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "emit.k8s.golden"), b.Bytes(), *update)
	var job struct {
		Kind string
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int
			Parallelism    int
			Template       struct {
				Spec struct {
					Containers []struct {
						Image   string
						Command []string
						Args    []string
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal(b.Bytes(), &job); err != nil {
		t.Fatalf("manifest is not YAML: %v", err)
	}
	c := job.Spec.Template.Spec.Containers
	if job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" || job.Spec.Completions != 4 || len(c) != 1 {
		t.Fatalf("job = %+v", job)
	}
	args := strings.Join(c[0].Args, " ")
	if c[0].Image != "registry.example/schedlab:0.1.0" || !strings.Contains(args, "sweep demo/policies --shard $(JOB_COMPLETION_INDEX)/4 --label quick") ||
		!strings.Contains(args, "--out /scratch/demo/shard-$(JOB_COMPLETION_INDEX)") || !strings.Contains(args, "--set policy.params.note=it's") {
		t.Errorf("container = %+v", c[0])
	}
}

func TestEmitRejectsBadOptions(t *testing.T) {
	o := emitOpts()
	o.Shards = 0
	if err := EmitSlurmScript(&bytes.Buffer{}, o); err == nil {
		t.Error("0 shards: no error")
	}
	o = emitOpts()
	o.Image = ""
	if err := EmitK8sJob(&bytes.Buffer{}, o); err == nil {
		t.Error("no image: no error")
	}
	if got := JobName("CORA/Fig_5a"); got != "schedlab-cora-fig-5a" {
		t.Errorf("JobName = %q", got)
	}
}

package sweep

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/internal/testutil"
)

func emitOpts() EmitOptions {
	return EmitOptions{Spec: "demo/policies", Label: "quick", Sets: []string{"engine.cycle_s=5", "policy.params.note=it's"},
		Shards: 4, Out: "/scratch/demo", Parallel: 2, Image: "registry.example/schedlab:0.1.0", Name: JobName("demo/policies")}
}

func emit(t *testing.T, write func(io.Writer, EmitOptions) error, o EmitOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b, o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bashSyntax checks a script with bash -n where bash exists.
func bashSyntax(t *testing.T, script []byte) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		return
	}
	cmd := exec.Command(bash, "-n")
	cmd.Stdin = bytes.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v\n%s", err, out)
	}
}

func TestEmitSlurm(t *testing.T) {
	array := emit(t, EmitSlurmScript, emitOpts())
	testutil.Golden(t, filepath.Join("testdata", "emit.slurm.golden"), array, *update)
	gather := emit(t, EmitSlurmGather, emitOpts())
	testutil.Golden(t, filepath.Join("testdata", "emit-gather.slurm.golden"), gather, *update)
	for _, want := range []string{"#SBATCH --array=0-3", `--shard "${SLURM_ARRAY_TASK_ID}"/4`, `'policy.params.note=it'\''s'`,
		`--out /scratch/demo/shard-"${SLURM_ARRAY_TASK_ID}"`, "sbatch --dependency=afterok:$(sbatch --parsable /scratch/demo/schedlab-demo-policies.slurm) /scratch/demo/schedlab-demo-policies-gather.slurm"} {
		if !bytes.Contains(array, []byte(want)) {
			t.Errorf("array script lacks %q", want)
		}
	}
	if want := "exec schedlab sweep --gather /scratch/demo/shard-0 /scratch/demo/shard-1 /scratch/demo/shard-2 /scratch/demo/shard-3 --out /scratch/demo\n"; !bytes.Contains(gather, []byte(want)) {
		t.Errorf("gather script lacks %q:\n%s", want, gather)
	}
	bashSyntax(t, array)
	bashSyntax(t, gather)

	// A shared cache, measured costs and a cell limit reach the shards; the cache the gather too.
	o := emitOpts()
	o.Cache, o.Costs, o.MaxCells, o.Out = "/shared/cache dir", "/scratch/old", 500, "/scratch/my out"
	array, gather = emit(t, EmitSlurmScript, o), emit(t, EmitSlurmGather, o)
	for _, want := range []string{"--costs /scratch/old --max-cells 500 --cache '/shared/cache dir' --out '/scratch/my out/shard-'\"${SLURM_ARRAY_TASK_ID}\"", "mkdir -p '/scratch/my out'"} {
		if !bytes.Contains(array, []byte(want)) {
			t.Errorf("array script lacks %q:\n%s", want, array)
		}
	}
	if want := "--out '/scratch/my out' --cache '/shared/cache dir'\n"; !bytes.Contains(gather, []byte(want)) {
		t.Errorf("gather script lacks %q:\n%s", want, gather)
	}
	bashSyntax(t, array)
	bashSyntax(t, gather)
}

// decodeJob decodes a manifest strictly into Kubernetes' batch/v1 Job type: an unknown or
// misspelt field, or a value of the wrong type anywhere in the document, is an error, as it is
// for kubectl apply's strict field validation.
func decodeJob(t *testing.T, manifest []byte) *batchv1.Job {
	t.Helper()
	var job batchv1.Job
	if err := k8syaml.UnmarshalStrict(manifest, &job); err != nil {
		t.Fatalf("not a valid batch/v1 Job: %v\n%s", err, manifest)
	}
	return &job
}

// checkJob applies the API server's rules for a Job that the schema alone does not carry:
// kind and version, DNS names, a pod template with restartPolicy Never or OnFailure, containers
// with a name and an image, and volume mounts that refer to declared volumes.
func checkJob(t *testing.T, job *batchv1.Job) {
	t.Helper()
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Errorf("apiVersion/kind = %s/%s", job.APIVersion, job.Kind)
	}
	for _, msg := range validation.IsDNS1123Label(job.Name) {
		t.Errorf("job name %q: %s", job.Name, msg)
	}
	pod := job.Spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever && pod.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("restartPolicy %q: a Job's pods need Never or OnFailure", pod.RestartPolicy)
	}
	if len(pod.Containers) == 0 {
		t.Fatal("no containers")
	}
	volumes := map[string]bool{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = true
		if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName == "" {
			t.Errorf("volume %q has no claim", v.Name)
		}
	}
	for _, c := range pod.Containers {
		if c.Name == "" || c.Image == "" {
			t.Errorf("container %+v needs a name and an image", c)
		}
		for _, m := range c.VolumeMounts {
			if !volumes[m.Name] || !filepath.IsAbs(m.MountPath) {
				t.Errorf("volume mount %+v: undeclared volume or relative path", m)
			}
		}
	}
	if job.Spec.Template.Labels["app.kubernetes.io/name"] != "schedlab" {
		t.Errorf("pod labels = %v", job.Spec.Template.Labels)
	}
}

func TestEmitK8s(t *testing.T) {
	o := emitOpts()
	manifest := emit(t, EmitK8sJob, o)
	testutil.Golden(t, filepath.Join("testdata", "emit.k8s.golden"), manifest, *update)
	job := decodeJob(t, manifest)
	checkJob(t, job)
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || *s.Completions != 4 || s.Parallelism == nil || *s.Parallelism != 4 {
		t.Errorf("job spec = %+v", s)
	}
	pod := s.Template.Spec
	c := pod.Containers[0]
	args := strings.Join(c.Args, " ")
	if c.Image != "registry.example/schedlab:0.1.0" || !slices.Equal(c.Command, []string{"schedlab"}) ||
		!strings.Contains(args, "sweep demo/policies --shard $(JOB_COMPLETION_INDEX)/4 --label quick") ||
		!strings.Contains(args, "--out /scratch/demo/shard-$(JOB_COMPLETION_INDEX)") || !strings.Contains(args, "--set policy.params.note=it's") {
		t.Errorf("container = %+v", c)
	}
	if len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim.ClaimName != "schedlab-demo-policies-results" ||
		c.VolumeMounts[0].MountPath != "/scratch/demo" {
		t.Errorf("results volume = %+v mounted %+v", pod.Volumes, c.VolumeMounts)
	}
	if sc := pod.SecurityContext; sc == nil || sc.FSGroup == nil || *sc.FSGroup != ImageUID || *sc.RunAsUser != ImageUID {
		t.Errorf("pod security context = %+v: the image's user must own the results volume", sc)
	}
	if got := c.Resources.Requests.Cpu().Value(); got != 2 {
		t.Errorf("cpu request %d, want --parallel 2", got)
	}

	// The gather Job, with a named claim and a shared cache.
	o.Claim, o.Cache = "team-results", "/scratch/demo/cache"
	gather := emit(t, EmitK8sGather, o)
	testutil.Golden(t, filepath.Join("testdata", "emit-gather.k8s.golden"), gather, *update)
	g := decodeJob(t, gather)
	checkJob(t, g)
	gc := g.Spec.Template.Spec.Containers[0]
	if g.Name != "schedlab-demo-policies-gather" || g.Spec.CompletionMode != nil ||
		strings.Join(gc.Args, " ") != "sweep --gather /scratch/demo/shard-0 /scratch/demo/shard-1 /scratch/demo/shard-2 /scratch/demo/shard-3 --out /scratch/demo --cache /scratch/demo/cache" ||
		g.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "team-results" {
		t.Errorf("gather job %s: args %q, volumes %+v", g.Name, gc.Args, g.Spec.Template.Spec.Volumes)
	}
	job = decodeJob(t, emit(t, EmitK8sJob, o))
	if !slices.Contains(job.Spec.Template.Spec.Containers[0].Args, "/scratch/demo/cache") || job.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "team-results" {
		t.Errorf("--cache or --claim not in the Job: %+v", job.Spec.Template.Spec)
	}
}

// TestK8sSchemaCheckCatchesMistakes makes sure the strict decoding above can fail: a misspelt
// field and a wrong type are rejected.
func TestK8sSchemaCheckCatchesMistakes(t *testing.T) {
	good := emit(t, EmitK8sJob, emitOpts())
	for name, bad := range map[string][]byte{
		"misspelt field": bytes.Replace(good, []byte("completionMode:"), []byte("completionMod:"), 1),
		"wrong type":     bytes.Replace(good, []byte("completions: 4"), []byte("completions: four"), 1),
		"unknown volume": bytes.Replace(good, []byte("persistentVolumeClaim:"), []byte("persistentVolumeClam:"), 1),
	} {
		var job batchv1.Job
		if err := k8syaml.UnmarshalStrict(bad, &job); err == nil {
			t.Errorf("%s: accepted", name)
		}
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
	if err := EmitK8sGather(&bytes.Buffer{}, o); err == nil {
		t.Error("no image (gather): no error")
	}
	o = emitOpts()
	o.Cache = "/elsewhere/cache"
	if err := EmitK8sJob(&bytes.Buffer{}, o); err == nil || !strings.Contains(err.Error(), "not under --out") {
		t.Errorf("a cache off the results volume: error = %v", err)
	}
	o.Cache = "/scratch/demo-other"
	if err := EmitK8sJob(&bytes.Buffer{}, o); err == nil {
		t.Error("a sibling directory with --out as prefix passed for a subdirectory")
	}
	// The jobs mount the results volume at --out: a relative path is no mountPath.
	o = emitOpts()
	o.Out = "out/demo"
	for _, emit := range []func(io.Writer, EmitOptions) error{EmitK8sJob, EmitK8sGather} {
		if err := emit(&bytes.Buffer{}, o); !errors.Is(err, experiments.ErrConfig) || !strings.Contains(err.Error(), "--out out/demo is relative") {
			t.Errorf("a relative --out: error = %v; want a configuration error naming it", err)
		}
	}
	if err := EmitSlurmScript(&bytes.Buffer{}, o); err != nil {
		t.Errorf("slurm with a relative --out (run from the submit directory): %v", err)
	}
	if got := JobName("CORA/Fig_5a"); got != "schedlab-cora-fig-5a" {
		t.Errorf("JobName = %q", got)
	}
	long := JobName(strings.Repeat("x", 80))
	if len(long)+len("-gather") > 52 || len(validation.IsDNS1123Label(long+"-gather")) > 0 {
		t.Errorf("JobName of a long ID = %q", long)
	}
}

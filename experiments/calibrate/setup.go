package calibrate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Setup describes a calibration input (calibration.yaml in its directory): the runs, the
// cluster and containers they used, which job ids belong to which queue, and the LQ job's task
// profile. Each field's source is documented in the file itself.
type Setup struct {
	// Runs are run directories (relative to the setup file) holding yarn_completion_time.csv,
	// completion_time.csv and yarnUsedResources.csv (each possibly .gz).
	Runs []string `yaml:"runs"`
	// Configs are cluster configuration files (yarn-site/fair-scheduler/tez-site XML or the
	// script that writes them) scanned for the scheduler properties (Properties).
	Configs []string `yaml:"configs"`
	Cluster struct {
		Nodes      int64 `yaml:"nodes"`
		NodeMemMB  int64 `yaml:"node_mem_mb"`
		NodeVcores int64 `yaml:"node_vcores"`
	} `yaml:"cluster"`
	// Containers are the container sizes the runs allocated, by name; "am" is the application
	// master's.
	Containers map[string]Container `yaml:"containers"`
	// LQQueues maps each latency-sensitive queue to its job-id range "first-last"; TQQueues the
	// same for batch queues.
	LQQueues map[string]string `yaml:"lq_queues"`
	TQQueues map[string]string `yaml:"tq_queues"`
	// LQJob is the LQ job's task profile: one entry per stage.
	LQJob []Stage `yaml:"lq_job"`
	// HeartbeatBandS: AM start-ups within this many seconds of the fastest count as
	// "allocated at once" (no queueing for the AM container); two node heartbeats.
	HeartbeatBandS float64 `yaml:"heartbeat_band_s"`
}

// Container is one container size.
type Container struct {
	Vcores int64 `yaml:"vcores"`
	MemMB  int64 `yaml:"mem_mb"`
}

// Stage is one stage of the LQ job's profile.
type Stage struct {
	Name      string  `yaml:"name"`
	Tasks     int64   `yaml:"tasks"`
	DurationS float64 `yaml:"duration_s"`
	Container string  `yaml:"container"`
}

// ErrValidation is returned (wrapped) for a path of the validation runs.
var ErrValidation = fmt.Errorf("validation run")

// validationRun matches the ccra runs of BPF Figs. 9-10 (1 TQ, 3 LQs), kept for validation.
var validationRun = regexp.MustCompile(`(?i)b1i3`)

// CheckNotValidation refuses a path that names a validation run (ccra's b1i3_*): those runs are
// the testbed claims' validation set and are never read for calibration.
func CheckNotValidation(path string) error {
	if validationRun.MatchString(path) {
		return fmt.Errorf("%w: %s names a b1i3 run (BPF Figs. 9-10), the validation set: calibration never reads it", ErrValidation, path)
	}
	return nil
}

// LoadSetup reads dir/calibration.yaml.
func LoadSetup(dir string) (*Setup, error) {
	if err := CheckNotValidation(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "calibration.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) > 1<<20 {
		return nil, fmt.Errorf("%s: larger than 1 MiB", path)
	}
	var s Setup
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if err := s.validate(path); err != nil {
		return nil, err
	}
	return &s, nil
}

func (s *Setup) validate(path string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	if len(s.Runs) == 0 {
		return bad("runs: none listed")
	}
	for _, r := range s.Runs {
		if err := CheckNotValidation(r); err != nil {
			return fmt.Errorf("%s: runs: %w", path, err)
		}
	}
	c := s.Cluster
	if c.Nodes <= 0 || c.NodeMemMB <= 0 || c.NodeVcores <= 0 || c.Nodes > 1e6 || c.NodeMemMB > 1e9 || c.NodeVcores > 1e6 {
		return bad("cluster: nodes, node_mem_mb and node_vcores must be positive (and plausible)")
	}
	if _, ok := s.Containers["am"]; !ok {
		return bad("containers: no \"am\" entry (the application master's size)")
	}
	for n, k := range s.Containers {
		if k.Vcores <= 0 || k.MemMB <= 0 || k.MemMB > c.NodeMemMB || k.Vcores > c.NodeVcores {
			return bad("containers.%s: vcores and mem_mb must be positive and fit a node", n)
		}
	}
	if len(s.LQQueues) == 0 || len(s.TQQueues) == 0 {
		return bad("lq_queues and tq_queues: both needed")
	}
	for q, r := range s.LQQueues {
		if _, _, err := idRange(r); err != nil {
			return bad("lq_queues.%s: %v", q, err)
		}
	}
	for q, r := range s.TQQueues {
		if _, _, err := idRange(r); err != nil {
			return bad("tq_queues.%s: %v", q, err)
		}
	}
	if len(s.LQJob) == 0 || len(s.LQJob) > 2 {
		return bad("lq_job: want one or two stages (the container decomposition solves for two task sizes)")
	}
	for _, st := range s.LQJob {
		if _, ok := s.Containers[st.Container]; !ok || st.Container == "am" {
			return bad("lq_job.%s: container %q is not a task container of containers", st.Name, st.Container)
		}
		if st.Tasks <= 0 || st.Tasks > 1e6 || st.DurationS <= 0 || st.DurationS > 1e6 {
			return bad("lq_job.%s: tasks and duration_s must be positive", st.Name)
		}
	}
	if s.HeartbeatBandS <= 0 || s.HeartbeatBandS > 60 {
		return bad("heartbeat_band_s: want (0, 60] seconds")
	}
	return nil
}

// idRange parses "first-last".
func idRange(r string) (int64, int64, error) {
	a, b, ok := strings.Cut(r, "-")
	lo, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	hi, err2 := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
	if !ok || err1 != nil || err2 != nil || lo > hi || lo < 0 {
		return 0, 0, fmt.Errorf("want a job-id range like \"0-9\", got %q", r)
	}
	return lo, hi, nil
}

// queueOf returns the queue whose id range holds the job name (a ccra dumpjob id), or "".
func queueOf(ranges map[string]string, name string) string {
	id, err := strconv.ParseInt(name, 10, 64)
	if err != nil {
		return ""
	}
	for q, r := range ranges {
		lo, hi, _ := idRange(r)
		if id >= lo && id <= hi {
			return q
		}
	}
	return ""
}

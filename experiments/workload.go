package experiments

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/cast"
	"github.com/spf13/viper"

	"github.com/schedlab/schedlab/internal/datapath"
	"github.com/schedlab/schedlab/traces"
	wbuiltin "github.com/schedlab/schedlab/traces/builtin"
	"github.com/schedlab/schedlab/traces/decima"
	"github.com/schedlab/schedlab/traces/generate"
	"github.com/schedlab/schedlab/traces/generate/bpf"
	"github.com/schedlab/schedlab/traces/generate/cora"
	"github.com/schedlab/schedlab/traces/generate/jamaisvu"
	"github.com/schedlab/schedlab/traces/generate/jamaisvu/fromgoogle"
	"github.com/schedlab/schedlab/traces/shape"
	"github.com/schedlab/schedlab/traces/tpcdag"
)

// Rand returns the generator for one component of a run: a PCG seeded from the experiment seed
// and the component's name, so components draw independent, reproducible streams.
func Rand(seed int64, component string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(component))
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}

// generator describes one workload generator's configuration keys (workload.<name>.<key>).
type generator struct {
	name string
	doc  string
	keys func() []generate.Key
}

var generators = []generator{
	{"bpf", "BPF §5.1: LQs with periodic bursts of TPC/BigBench DAGs and backlogged TQs", bpf.Keys},
	{"cora", "CORA §III-C: Poisson MapReduce jobs with sigmoid utilities on a container pool", cora.Keys},
	{"jamaisvu", "JamaisVu: k-means Google job classes on a 256-node cluster with Table 3 mixes", jamaisvuKeys},
	{"decima", "Decima's TPC-H jobs in decima-sim's arrival process (init jobs, then Poisson arrivals)", decima.StreamKeys},
}

func jamaisvuKeys() []generate.Key {
	return append([]generate.Key{{Name: "trace", Default: "", Doc: "Google 2011 trace directory (holding job_events/ and task_events/) or its job_events directory (task_events/ beside it is used) the job classes are fitted to; required"}}, jamaisvu.Keys()...)
}

func generatorNames() []string {
	var names []string
	for _, g := range generators {
		names = append(names, g.name)
	}
	return names
}

// workloadKeys lists the shaping and generator keys, all under workload.
func workloadKeys() []Key {
	keys := []Key{{"workload.generator", "", "generate the workload instead of reading workload.name: " + strings.Join(generatorNames(), ", ") + " (options under workload.<generator>.*)"}}
	for _, k := range shape.Keys() {
		keys = append(keys, Key{"workload." + k.Name, k.Default, "shaping: " + k.Doc})
	}
	for _, g := range generators {
		for _, k := range g.keys() {
			keys = append(keys, Key{"workload." + g.name + "." + k.Name, k.Default, g.name + " generator: " + k.Doc})
		}
	}
	return keys
}

// resolveWorkloadSettings reads generator and shaping keys into the canonical Settings string.
func resolveWorkloadSettings(v *viper.Viper, c *WorkloadConfig) error {
	g, err := cast.ToStringE(v.Get("workload.generator"))
	if err != nil {
		return configErr("workload.generator: want a name, got %v", v.Get("workload.generator"))
	}
	c.Generator = strings.TrimSpace(g)
	if c.Generator != "" && !slices.Contains(generatorNames(), c.Generator) {
		return configErr("workload.generator: unknown generator %q (valid: %s)", c.Generator, strings.Join(generatorNames(), ", "))
	}
	settings := workloadSettings{Shape: map[string]any{}, Generator: map[string]any{}}
	for _, k := range shape.Keys() {
		settings.Shape[k.Name] = v.Get("workload." + k.Name)
	}
	so, err := shape.FromConfig(func(k string) any { return settings.Shape[k] })
	if err == nil {
		err = so.Validate()
	}
	if err != nil {
		return shapeErr(err)
	}
	if c.Generator != "" {
		for _, g := range generators {
			if g.name != c.Generator {
				continue
			}
			for _, k := range g.keys() {
				settings.Generator[k.Name] = v.Get("workload." + g.name + "." + k.Name)
			}
		}
		opts, err := generatorOptions(c.Generator, settings.Generator, false)
		if err != nil {
			return err
		}
		if err := validateGenerator(c.Generator, opts); err != nil {
			return err
		}
	}
	b, err := json.Marshal(settings)
	if err != nil {
		return err
	}
	c.Settings = string(b)
	return nil
}

// shapeErr reports the first of shape's option errors as a configuration error naming its key.
func shapeErr(err error) error {
	var ke *shape.KeyError
	if errors.As(err, &ke) {
		return configErr("workload.%s: %v", ke.Key, ke.Err)
	}
	return configErr("workload: %v", err)
}

// workloadSettings is the decoded form of WorkloadConfig.Settings.
type workloadSettings struct {
	Shape     map[string]any `json:"shape"`
	Generator map[string]any `json:"generator,omitempty"`
}

// generatorOptions builds a generator's Options from its key values. Keys map to Options fields
// by name (case and underscores ignored: lq_max_critical_path_s → LQMaxCriticalPathS). With load
// set it also reads the input files the generator needs (bpf queries, jamaisvu trace).
func generatorOptions(name string, values map[string]any, load bool) (any, error) {
	var opts reflect.Value
	switch name {
	case "bpf":
		o := bpf.Defaults()
		opts = reflect.ValueOf(&o).Elem()
	case "cora":
		o := cora.Defaults()
		opts = reflect.ValueOf(&o).Elem()
	case "jamaisvu":
		o := jamaisvu.Defaults()
		opts = reflect.ValueOf(&o).Elem()
	case "decima":
		o := decima.StreamDefaults()
		opts = reflect.ValueOf(&o).Elem()
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		val := values[k]
		if k == "queries" || k == "trace" || (name == "decima" && k == "dir") {
			continue // inputs, read below
		}
		f := fieldByKey(opts, k)
		if !f.IsValid() {
			return nil, configErr("workload.%s.%s: no such option", name, k)
		}
		if err := setField(f, val); err != nil {
			return nil, configErr("workload.%s.%s: %v", name, k, err)
		}
	}
	path, _ := cast.ToStringE(values["queries"])
	switch name {
	case "jamaisvu":
		path, _ = cast.ToStringE(values["trace"])
	case "decima":
		path, _ = cast.ToStringE(values["dir"])
	}
	if load {
		// Input files are found from any directory: data:…, ../shared/data/… and repository
		// fixtures (datapath.Resolve).
		var err error
		if path, err = datapath.Resolve(path); err != nil {
			return nil, err
		}
		if err := CheckRegular(path, name != "bpf"); err != nil { // a named pipe would block the read
			return nil, fmt.Errorf("workload.%s.%s: %w", name, map[string]string{"bpf": "queries", "jamaisvu": "trace", "decima": "dir"}[name], err)
		}
		switch name {
		case "bpf":
			if path == "" {
				return nil, configErr("workload.bpf.queries: required (a Carbyne/BoPF query file such as queries_tpch.txt)")
			}
			q, err := tpcdag.ReadFile(path, tpcdag.Options{LastStageWins: true})
			if err != nil {
				return nil, err
			}
			opts.FieldByName("Queries").Set(reflect.ValueOf(q))
		case "jamaisvu":
			if path == "" {
				return nil, configErr("workload.jamaisvu.trace: required (a Google 2011 job_events directory)")
			}
			src, err := fromgoogle.Discover(path)
			if err != nil {
				return nil, err
			}
			samples, st, err := fromgoogle.Samples(src)
			if err != nil {
				return nil, err
			}
			opts.FieldByName("Samples").Set(reflect.ValueOf(samples))
			opts.FieldByName("SampleNote").SetString(st.Note())
		case "decima":
			if path == "" {
				return nil, configErr("workload.decima.dir: required (a folder of Decima's tpch_<size>.json files)")
			}
			o := opts.Interface().(decima.StreamOptions)
			var sizes []string
			if strings.TrimSpace(o.Sizes) != "" {
				for _, sz := range strings.Split(o.Sizes, ",") {
					sizes = append(sizes, strings.TrimSpace(sz))
				}
			}
			catalog, err := decima.ReadDir(path, sizes, o.ReaderOptions())
			if err != nil {
				return nil, err
			}
			opts.FieldByName("Catalog").Set(reflect.ValueOf(catalog))
		}
	}
	return opts.Interface(), nil
}

func fieldByKey(v reflect.Value, key string) reflect.Value {
	want := strings.ReplaceAll(key, "_", "")
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if strings.EqualFold(t.Field(i).Name, want) {
			return v.Field(i)
		}
	}
	return reflect.Value{}
}

func setField(f reflect.Value, val any) error {
	if val == nil {
		return nil
	}
	switch f.Kind() {
	case reflect.Int, reflect.Int32, reflect.Int64:
		n, err := cast.ToInt64E(val)
		if err != nil {
			return fmt.Errorf("want an integer, got %v", val)
		}
		f.SetInt(n)
	case reflect.Float64:
		x, err := cast.ToFloat64E(val)
		if err != nil {
			return fmt.Errorf("want a number, got %v", val)
		}
		f.SetFloat(x)
	case reflect.Bool:
		b, err := cast.ToBoolE(val)
		if err != nil {
			return fmt.Errorf("want a boolean, got %v", val)
		}
		f.SetBool(b)
	case reflect.String:
		s, err := cast.ToStringE(val)
		if err != nil {
			return fmt.Errorf("want a string, got %v", val)
		}
		f.SetString(strings.TrimSpace(s))
	default:
		return fmt.Errorf("option of type %s cannot be set from configuration", f.Type())
	}
	return nil
}

// LoadWorkload builds the configured workload: generated (workload.generator) or read
// (workload.name: an embedded workload, a canonical .parquet/.arrow file, or a Carbyne/BoPF
// stage-DAG .txt file); then workload.machines and workload.pooled; then shaping, with random
// draws from Rand(seed, "workload/…").
func LoadWorkload(c WorkloadConfig) (*traces.Workload, error) {
	var settings workloadSettings
	if c.Settings != "" {
		if err := json.Unmarshal([]byte(c.Settings), &settings); err != nil {
			return nil, fmt.Errorf("experiments: workload settings: %w", err)
		}
	}
	var w *traces.Workload
	var err error
	file := c.Name // a file found from any directory (datapath.Resolve)
	if c.Generator == "" && !wbuiltin.Has(c.Name) {
		if file, err = datapath.Resolve(c.Name); err != nil {
			return nil, err
		}
		if err := CheckRegular(file, false); err != nil { // before a reader blocks on a pipe
			return nil, fmt.Errorf("workload.name: %w", err)
		}
	}
	switch {
	case c.Generator != "":
		w, err = generateWorkload(c, settings.Generator)
	case wbuiltin.Has(c.Name):
		w, err = wbuiltin.Load(c.Name)
	case strings.HasSuffix(file, ".parquet") || strings.HasSuffix(file, ".arrow"):
		w, err = c.Limits.ReadCanonical(file)
	case strings.HasSuffix(file, ".txt"):
		w, err = tpcdag.ReadFile(file, tpcdag.Options{})
	default:
		if _, statErr := os.Stat(file); statErr != nil {
			return nil, configErr("workload.name: %q is neither an embedded workload (%s) nor a readable file", c.Name, strings.Join(wbuiltin.Names(), ", "))
		}
		return nil, configErr("workload.name: %q: unknown file type (want .parquet or .arrow from `schedlab trace import`, or a .txt stage-DAG file)", c.Name)
	}
	if err != nil {
		return nil, err
	}
	if file != c.Name && w.Source == file {
		w.Source = c.Name // as configured, not where this machine keeps it
	}
	if c.Machines > 0 {
		if err := c.Limits.checkMachines(c.Machines); err != nil {
			return nil, configErr("workload.machines: %v", err)
		}
		capacity := w.Cluster.Machines[0].Capacity
		w.Cluster.Machines = traces.Uniform(c.Machines, capacity, 0).Machines
	}
	if c.Pooled {
		w.Cluster.Pooled = true
	}
	// Every workload is validated once read, whatever its source, before shaping walks its
	// DAGs (workload.deadlines=slack takes critical paths), and again if shaping changed it.
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("workload %s: %w", c.input(), err)
	}
	so, err := shape.FromConfig(func(k string) any { return settings.Shape[k] })
	if err != nil {
		return nil, shapeErr(err)
	}
	if !reflect.DeepEqual(so, shapeDefaults()) {
		// Scaling task counts allocates per-task durations: check the scaled counts first.
		if so.ScaleTasks != 1 {
			if err := c.Limits.check(w, scaledTasks(so.ScaleTasks)); err != nil {
				return nil, fmt.Errorf("workload %s with workload.scale_tasks=%v: %w", c.input(), so.ScaleTasks, err)
			}
		}
		if err := shape.Apply(w, so, Rand(c.Seed, "workload/shape")); err != nil {
			return nil, fmt.Errorf("workload %s: %w", c.input(), err)
		}
		if err := w.Validate(); err != nil {
			return nil, fmt.Errorf("workload %s: %w", c.input(), err)
		}
	}
	if err := c.Limits.Check(w); err != nil {
		return nil, fmt.Errorf("workload %s: %w", c.input(), err)
	}
	return w, nil
}

// input names where the workload comes from in errors: the file or embedded name, or the
// generator.
func (c WorkloadConfig) input() string {
	if c.Generator != "" {
		return "generated by " + c.Generator
	}
	return c.Name
}

// scaledTasks is a stage's task count after shaping's scale step (shape.Options.ScaleTasks:
// rounded, at least 1), for checking limits before the step allocates.
func scaledTasks(k float64) func(int32) int64 {
	return func(n int32) int64 { return max(int64(math.Round(float64(n)*k)), 1) }
}

func shapeDefaults() shape.Options {
	d, _ := shape.FromConfig(func(string) any { return nil })
	return d
}

func generateWorkload(c WorkloadConfig, values map[string]any) (*traces.Workload, error) {
	opts, err := generatorOptions(c.Generator, values, true)
	if err != nil {
		return nil, err
	}
	r := Rand(c.Seed, "workload/generate/"+c.Generator)
	var w *traces.Workload
	switch o := opts.(type) {
	case bpf.Options:
		w, err = bpf.Generate(o, r)
	case cora.Options:
		w, err = cora.Generate(o, r)
	case jamaisvu.Options:
		w, err = jamaisvu.Generate(o, r)
	case decima.StreamOptions:
		w, err = decima.Stream(o, r)
	default:
		return nil, fmt.Errorf("experiments: generator %q has no options type", c.Generator)
	}
	// An option error names the Go field (Options.LQs); report the key (workload.bpf.lqs).
	return w, generatorErr(c.Generator, err)
}

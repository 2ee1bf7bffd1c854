package experiments

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cast"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// The testbed profiles compiled into schedlab: experiments/testbeds/<name>.yaml, each a flat
// mapping of engine.* keys to values, every value with a comment naming its source.
//
//go:embed testbeds/*.yaml
var testbedFS embed.FS

// testbedDir is where the embedded profiles live; it is not a paper's spec directory.
const testbedDir = "testbeds"

// TestbedNames lists the embedded testbed profiles, sorted.
func TestbedNames() []string {
	matches, _ := fs.Glob(testbedFS, testbedDir+"/*.yaml")
	var names []string
	for _, m := range matches {
		names = append(names, strings.TrimSuffix(path.Base(m), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// TestbedSetting is one key of a profile, with the line it is on.
type TestbedSetting struct {
	Key    string
	Value  any
	Line   int
	Source string // the value's comment
}

// Testbed is a loaded profile.
type Testbed struct {
	Name     string
	File     string
	Settings []TestbedSetting
}

// LoadTestbed reads a testbed profile: an embedded name (TestbedNames) or a path ending in .yaml
// or .yml. An unknown name is a configuration error with the nearest names; a bad key or value
// is one error naming the file and line.
func LoadTestbed(name string) (*Testbed, error) {
	var data []byte
	var file string
	if IsSpecFile(name) {
		f, err := os.Open(name)
		if err != nil {
			return nil, configErr("testbed: %v", err)
		}
		defer f.Close()
		if data, err = ReadYAML(f, name); err != nil {
			return nil, configErr("testbed: %v", err)
		}
		file = name
	} else {
		if !slices.Contains(TestbedNames(), name) {
			return nil, configErr("testbed: unknown profile %q%s", name,
				SuggestOr(name, TestbedNames(), " (profiles: "+strings.Join(TestbedNames(), ", ")+", or a .yaml file)"))
		}
		var err error
		if data, err = fs.ReadFile(testbedFS, testbedDir+"/"+name+".yaml"); err != nil {
			return nil, err
		}
		file = "experiments/" + testbedDir + "/" + name + ".yaml"
	}
	tb, err := parseTestbed(data, file)
	if err != nil {
		return nil, err
	}
	tb.Name = strings.TrimSuffix(path.Base(strings.ReplaceAll(name, "\\", "/")), path.Ext(name))
	return tb, nil
}

// parseTestbed decodes a profile and checks every setting: an engine.* configuration key, set
// once, to a value the key accepts.
func parseTestbed(data []byte, file string) (*Testbed, error) {
	doc, err := DecodeYAML(data, file, "a testbed profile")
	if err != nil {
		return nil, err
	}
	tb := &Testbed{File: file}
	if len(doc.Content) == 0 {
		return nil, configErr("%s: empty testbed profile", file)
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, configErr("%s:%d: a testbed profile is a mapping of engine.* keys to values", file, m.Line)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, val := m.Content[i], m.Content[i+1]
		key := k.Value
		at := fmt.Sprintf("%s:%d", file, k.Line)
		if err := CheckKeys([]string{key}, at); err != nil {
			return nil, err
		}
		if !strings.HasPrefix(key, "engine.") {
			return nil, configErr("%s: %s: a testbed profile sets engine.* keys only", at, key)
		}
		if seen[key] {
			return nil, configErr("%s: %s set twice", at, key)
		}
		seen[key] = true
		if val.Kind != yaml.ScalarNode {
			return nil, configErr("%s: %s: want a single value", at, key)
		}
		var x any
		if err := val.Decode(&x); err != nil {
			return nil, configErr("%s: %s: %v", at, key, err)
		}
		if err := checkSetting(key, x); err != nil {
			return nil, configErr("%s: %s", at, strings.TrimPrefix(err.Error(), ErrConfig.Error()+": "))
		}
		src := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(val.LineComment+k.LineComment), "#"))
		tb.Settings = append(tb.Settings, TestbedSetting{Key: key, Value: x, Line: k.Line, Source: src})
	}
	return tb, nil
}

// checkSetting resolves a configuration of default values with key set to x.
func checkSetting(key string, x any) error {
	v := NewViper()
	v.Set(key, x)
	_, err := Resolve(v)
	return err
}

// applyTestbed sets the chosen profile's values as v's defaults: any value from a configuration
// file, --set or the environment overrides them. It returns the profile's name ("" for none).
func applyTestbed(v *viper.Viper) (string, error) {
	name, err := cast.ToStringE(v.Get("testbed"))
	if err != nil {
		return "", configErr("testbed: want a profile name, got %v", v.Get("testbed"))
	}
	if name = strings.TrimSpace(name); name == "" {
		return "", nil
	}
	tb, err := loadTestbedCached(name)
	if err != nil {
		return "", err
	}
	for _, s := range tb.Settings {
		v.SetDefault(s.Key, s.Value)
	}
	return name, nil
}

// embeddedTestbeds caches the embedded profiles, which every Resolve of a sweep's cells reads.
var embeddedTestbeds sync.Map // name → *Testbed

// loadTestbedCached is LoadTestbed, remembering embedded profiles (files are read each time:
// they may change between runs of a long-lived process).
func loadTestbedCached(name string) (*Testbed, error) {
	if IsSpecFile(name) {
		return LoadTestbed(name)
	}
	if tb, ok := embeddedTestbeds.Load(name); ok {
		return tb.(*Testbed), nil
	}
	tb, err := LoadTestbed(name)
	if err != nil {
		return nil, err
	}
	embeddedTestbeds.Store(name, tb)
	return tb, nil
}

// profileSourcesMissing lists the settings of tb without a source comment.
func (tb *Testbed) profileSourcesMissing() []string {
	var out []string
	for _, s := range tb.Settings {
		if s.Source == "" {
			out = append(out, fmt.Sprintf("%s:%d: %s", tb.File, s.Line, s.Key))
		}
	}
	return out
}

// mapTestbed adds the testbed profile's name and the stop rule to a configuration map when they
// are set, so that configurations without them render (and hash) as before.
func (c Config) mapTestbed(m map[string]any) {
	if c.Testbed != "" {
		m["testbed"] = c.Testbed
	}
	if c.Engine.StopAfterQueue != "" {
		if e, ok := m["engine"].(map[string]any); ok {
			e["stop_after_queue"] = c.Engine.StopAfterQueue
		}
	}
}

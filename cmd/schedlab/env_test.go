package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestWarnEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		environ []string
		want    []string // warning lines, in order
	}{
		{"keys and schedlab's own variables are read", []string{"SCHEDLAB_POLICY_NAME=drf", "SCHEDLAB_ENGINE_CYCLE_S=5", "SCHEDLAB_WORKLOAD_CORA_JOBS=10", "SCHEDLAB_SHARED_DATA=/d", "SCHEDLAB_HIGHS_WASM=/h", "SCHEDLAB_WAZERO_CACHE=off", "SCHEDLAB_GOOGLE2011=/g", "PATH=/bin"}, nil},
		{"a typo gets a suggestion", []string{"SCHEDLAB_POLICY_NAM=srpt"}, []string{"schedlab: warning: SCHEDLAB_POLICY_NAM ignored: schedlab reads no such variable, did you mean SCHEDLAB_POLICY_NAME?"}},
		{"a name far from any gets none", []string{"SCHEDLAB_FROBNICATE=1"}, []string{"schedlab: warning: SCHEDLAB_FROBNICATE ignored: schedlab reads no such variable"}},
		{"policy.params are not read from the environment", []string{"SCHEDLAB_POLICY_PARAMS_PREEMPT=true"}, []string{"schedlab: warning: SCHEDLAB_POLICY_PARAMS_PREEMPT ignored: policy.params.* keys are not read from the environment (use --set or --config)"}},
		{"other prefixes are none of schedlab's business", []string{"SCHEDLABX=1", "MY_SCHEDLAB_POLICY=1"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			warnEnv(&b, tc.environ)
			got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if b.Len() == 0 {
				got = nil
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestEveryVariableIsKnown finds the SCHEDLAB_* names in the repository's Go string literals and
// build files and checks that warnEnv knows each: a variable added without adding it to otherEnv would
// be warned about as unknown.
func TestEveryVariableIsKnown(t *testing.T) {
	word := regexp.MustCompile(`SCHEDLAB_[A-Z0-9_]*[A-Z0-9]`)
	literal := regexp.MustCompile(`"(SCHEDLAB_[A-Z0-9_]*[A-Z0-9])"`)
	known := envNames()
	root := filepath.Join("..", "..")
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "third_party") {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if strings.HasSuffix(name, "_test.go") || !(strings.HasSuffix(name, ".go") || name == "Makefile" || name == "Dockerfile") {
			return nil // tests may use variables of their own
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var vars []string
		if strings.HasSuffix(name, ".go") {
			for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
				vars = append(vars, m[1])
			}
		} else {
			vars = word.FindAllString(string(b), -1)
		}
		for _, v := range vars {
			found++
			if !slices.Contains(known, v) && !strings.HasPrefix(v, "SCHEDLAB_POLICY_PARAMS") {
				t.Errorf("%s uses %s, which warnEnv does not know: add it to otherEnv", path, v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("found no SCHEDLAB_* variable in the repository")
	}
}

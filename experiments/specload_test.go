package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// TestSpecLoadingRefusesCraftedInput loads the crafted spec files under testdata/specload: alias
// bombs, alias cycles and second documents are configuration errors naming the file and line,
// before anything expands the aliases; moderate aliases and a trailing "---" load.
func TestSpecLoadingRefusesCraftedInput(t *testing.T) {
	for _, tt := range []struct {
		file string
		want string // "" loads
	}{
		{"alias-bomb.yaml", "alias-bomb.yaml:9: excessive aliasing: YAML aliases expand the file past 10000 nodes (at alias *c)"},
		{"alias-cycle.yaml", "alias-cycle.yaml:4: alias *loop lies inside the node it names"},
		{"two-documents.yaml", "two-documents.yaml:9: a second YAML document; a spec file holds one"},
		{"aliases-ok.yaml", ""},
		{"trailing-separator.yaml", ""},
	} {
		t.Run(tt.file, func(t *testing.T) {
			s, err := LoadSpec(filepath.Join("testdata", "specload", tt.file))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.WithLabel("quick"); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrConfig with %q", err, tt.want)
			}
		})
	}
	s, err := LoadSpec(filepath.Join("testdata", "specload", "aliases-ok.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Base["policy.class_order"]; !slices.Equal(got.([]any), []any{"lq", "tq"}) {
		t.Errorf("aliased base value %v", got)
	}
}

// TestSpecLoadingLimits: an include holding an alias bomb is refused at the include's line, and
// a spec file over MaxYAMLBytes is refused without being parsed.
func TestSpecLoadingLimits(t *testing.T) {
	bomb, err := os.ReadFile(filepath.Join("testdata", "specload", "alias-bomb.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"spec.yaml":  {Data: []byte("include: _bomb.yaml\n")},
		"_bomb.yaml": {Data: bomb},
	}
	if _, err := ParseSpec(fsys, "spec.yaml", "", "t/spec"); err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "_bomb.yaml:9: excessive aliasing") {
		t.Errorf("bomb in an include: %v", err)
	}
	fsys["spec.yaml"] = &fstest.MapFile{Data: []byte("title: " + strings.Repeat("x", MaxYAMLBytes) + "\n")}
	if _, err := ParseSpec(fsys, "spec.yaml", "", "t/spec"); err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
		t.Errorf("oversized spec: %v", err)
	}
}

// TestRepositorySpecFileFromAnyDirectory: a spec file written as its repository path (README's
// `reproduce policies/external/examples/byos.yaml`) is found from another working directory.
func TestRepositorySpecFileFromAnyDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	const file = "policies/external/examples/byos.yaml"
	if _, err := LoadSpec(file); err != nil {
		t.Fatalf("LoadSpec(%q) from another directory: %v", file, err)
	}
	files, err := MatchSpecs(file)
	if err != nil || len(files) != 1 || !filepath.IsAbs(files[0]) {
		t.Fatalf("MatchSpecs(%q) = %v, %v; want the repository's file", file, files, err)
	}
}

package main

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"

	"github.com/schedlab/schedlab/experiments/sweep"
)

// BuildKit's own Dockerfile parser reads the Dockerfile into build stages (the syntax, and every
// instruction's flags and arguments), and the stages must build what the Kubernetes jobs expect.
// Where podman is installed, image_run_test.go builds the image and runs a sweep shard in it.

const dockerfile = "../../Dockerfile"

func readStages(t *testing.T, path string) []instructions.Stage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parser.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, w := range res.Warnings {
		t.Errorf("%s: %s", path, w.Short)
	}
	stages, _, err := instructions.Parse(res.AST, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return stages
}

func TestDockerfile(t *testing.T) {
	stages := readStages(t, dockerfile)
	names := make([]string, len(stages))
	for i, s := range stages {
		names[i] = s.Name
	}
	// compile (in a Go container) or prebuilt (a context made on the host, where nothing can be
	// pulled) becomes the build stage the image copies from, as --build-arg BUILD says.
	if !slices.Equal(names, []string{"compile", "prebuilt", "build", ""}) {
		t.Fatalf("stages %q, want compile, prebuilt, build and the image", names)
	}
	build, prebuilt, image := stages[0], stages[1], stages[3]
	if stages[2].BaseName != "${BUILD}" || !fileContains(t, dockerfile, "ARG BUILD=compile") {
		t.Errorf("the build stage is FROM %s, want ${BUILD} (ARG BUILD=compile)", stages[2].BaseName)
	}
	if prebuilt.BaseName != "scratch" || len(prebuilt.Commands) != 1 {
		t.Errorf("the prebuilt stage: FROM %s with %d instructions, want FROM scratch and one COPY of out/", prebuilt.BaseName, len(prebuilt.Commands))
	} else if c, ok := prebuilt.Commands[0].(*instructions.CopyCommand); !ok || !slices.Equal(c.SourcePaths, []string{"out/"}) || c.DestPath != "/out/" {
		t.Errorf("the prebuilt stage runs %v, want COPY out/ /out/", prebuilt.Commands[0])
	}

	// The build stage compiles a static binary with the Go of go.mod.
	goVersion := goDirective(t)
	if !strings.HasPrefix(build.BaseName, "golang:${GO_VERSION}") {
		t.Errorf("build stage FROM %s, want golang:${GO_VERSION}", build.BaseName)
	}
	if want := `ARG GO_VERSION=` + goVersion; !fileContains(t, dockerfile, want) {
		t.Errorf("Dockerfile lacks %q (go.mod's go version)", want)
	}
	var runs []string
	var copies [][]string
	for _, c := range build.Commands {
		switch c := c.(type) {
		case *instructions.RunCommand:
			runs = append(runs, strings.Join(c.CmdLine, " "))
		case *instructions.CopyCommand:
			copies = append(copies, c.SourcePaths)
		}
	}
	joined := strings.Join(runs, "\n")
	for _, want := range []string{"CGO_ENABLED=0 go build", "-o /out/bin/schedlab ./cmd/schedlab", "schedlab solver install --dest /out/highs", "solver check"} {
		if !strings.Contains(joined, want) {
			t.Errorf("build stage runs no %q", want)
		}
	}
	for _, srcs := range copies { // every source is in the build context
		for _, s := range srcs {
			if _, err := os.Stat(filepath.Join("../..", s)); err != nil {
				t.Errorf("COPY %s: %v", s, err)
			}
		}
	}

	// The image: distroless (or scratch), the binary on PATH, the wasm where the solver is told
	// to look, the user the Kubernetes jobs run as.
	if image.BaseName != "${BASE}" || !fileContains(t, dockerfile, "ARG BASE=gcr.io/distroless/static-debian12:nonroot") {
		t.Errorf("image FROM %s, want ${BASE}, distroless static by default", image.BaseName)
	}
	copied := map[string]string{} // destination → source in the build stage
	var env map[string]string
	var user, workdir string
	var entrypoint []string
	for _, c := range image.Commands {
		switch c := c.(type) {
		case *instructions.CopyCommand:
			if c.From != "build" {
				t.Errorf("COPY %v not from the build stage", c.SourcePaths)
			}
			for _, s := range c.SourcePaths {
				copied[c.DestPath] = s
			}
		case *instructions.EnvCommand:
			if env == nil {
				env = map[string]string{}
			}
			for _, kv := range c.Env {
				env[kv.Key] = kv.Value
			}
		case *instructions.UserCommand:
			user = c.User
		case *instructions.WorkdirCommand:
			workdir = c.Path
		case *instructions.EntrypointCommand:
			entrypoint = c.CmdLine
		}
	}
	if copied["/usr/local/bin/schedlab"] != "/out/bin/schedlab" {
		t.Errorf("the binary is not copied to /usr/local/bin (on distroless's PATH): %v", copied)
	}
	wasm := env["SCHEDLAB_HIGHS_WASM"]
	if dir := path.Dir(wasm) + "/"; copied[dir] != "/out/highs/" || path.Base(wasm) != "highs.wasm" {
		t.Errorf("SCHEDLAB_HIGHS_WASM=%q is not where /out/highs/ is copied (%v)", wasm, copied)
	}
	if uid := strconv.Itoa(sweep.ImageUID); user != uid+":"+uid {
		t.Errorf("USER %q, want %d:%d (the jobs' runAsUser and fsGroup)", user, sweep.ImageUID, sweep.ImageUID)
	}
	if workdir != "/work" || copied["/work"] != "/out/work" {
		t.Errorf("WORKDIR %q (copied %v): the work directory must exist and belong to the user", workdir, copied)
	}
	if !slices.Equal(entrypoint, []string{"schedlab"}) {
		t.Errorf("ENTRYPOINT %q", entrypoint)
	}
	// The build context leaves out what the image must not carry.
	for _, want := range []string{".git", "results", "bin"} {
		if !fileContains(t, "../../.dockerignore", want) {
			t.Errorf(".dockerignore lacks %s", want)
		}
	}
}

// TestDockerfileCheckCatchesMistakes makes sure the parsing above can fail.
func TestDockerfileCheckCatchesMistakes(t *testing.T) {
	for name, body := range map[string]string{
		"unknown instruction": "FROM scratch\nCOPPY a /b\n",
		"bad flag":            "FROM scratch\nCOPY --form=build a /b\n",
		"no FROM":             "COPY a /b\n",
	} {
		res, err := parser.Parse(strings.NewReader(body))
		if err == nil {
			_, _, err = instructions.Parse(res.AST, nil)
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// goDirective returns go.mod's go version as major.minor ("1.26").
func goDirective(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	return string(m[1])
}

func fileContains(t *testing.T, path, line string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if strings.TrimSpace(s.Text()) == line {
			return true
		}
	}
	return false
}

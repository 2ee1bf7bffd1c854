package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/testbin"
	"github.com/schedlab/schedlab/policies/solver"
)

// podmanFlags are the global podman flags that work as root in a sandbox like this one: image
// storage in the test's temporary directory (vfs: no overlay mounts), cgroupfs instead of systemd,
// and runc where it is installed (crun refuses hybrid cgroup v1/v2 hosts). The Makefile's image
// target uses the same storage driver.
func podmanFlags(dir string) []string {
	flags := []string{"--root", filepath.Join(dir, "storage"), "--runroot", filepath.Join(dir, "run"),
		"--storage-driver", "vfs", "--cgroup-manager", "cgroupfs", "--events-backend", "file"}
	if _, err := exec.LookPath("runc"); err == nil {
		flags = append(flags, "--runtime", "runc")
	}
	return flags
}

// podmanRunFlags: no network, and limits the container may set without CAP_SYS_RESOURCE
// (podman's defaults raise the open-files limit above the host's and fail here).
var podmanRunFlags = []string{"--rm", "--network=none", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"}

// TestImageRunsASweepShard builds the container image from the Dockerfile the way `make image`
// does where nothing can be pulled (a static binary and highs.wasm built here, the prebuilt
// stage, FROM scratch) and runs one shard of the quick demo/policies sweep in it as the image's
// unprivileged user: the cells' jobs and usage it writes must be the same bytes as the same binary's on the host,
// and the solver must pass its check inside. It skips where podman is not installed (make setup
// installs Debian's podman, buildah and runc), and fails then under CI=true.
func TestImageRunsASweepShard(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a container image")
	}
	podman, err := exec.LookPath("podman")
	if err != nil {
		msg := "podman is not installed: make setup installs Debian's podman, buildah and runc"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	ctx := filepath.Join(dir, "context")
	for _, d := range []string{"out/bin", "out/highs", "out/work"} {
		if err := os.MkdirAll(filepath.Join(ctx, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The static binary of `make build` (CGO_ENABLED=0), which `make test` builds first; `make
	// image` copies the same file.
	bin := filepath.Join(ctx, "out", "bin", "schedlab")
	begin := time.Now()
	if b, err := os.ReadFile(testbin.Schedlab(t)); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	wasm, werr := solver.LocateWasm()
	if werr == nil {
		b, err := os.ReadFile(wasm)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ctx, "out", "highs", "highs.wasm"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Logf("the image gets no highs.wasm and its solver check is left out: %v", werr)
	}
	t.Logf("static binary ready in %v", time.Since(begin).Round(time.Millisecond))

	pm := func(args ...string) (string, error) {
		cmd := exec.Command(podman, append(podmanFlags(dir), args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	t.Cleanup(func() { pm("rmi", "--all", "--force") }) // unmounts before TempDir removes storage
	const tag = "localhost/schedlab:test"
	begin = time.Now()
	// (--layers=false makes podman 4.3 fail after tagging: "identifier is not an image".)
	if out, err := pm("build", "--pull=never", "-f", dockerfile, "--build-arg", "BUILD=prebuilt", "--build-arg", "BASE=scratch", "-t", tag, ctx); err != nil {
		t.Fatalf("podman build: %v\n%s", err, out)
	}
	t.Logf("image built in %v", time.Since(begin).Round(time.Millisecond))

	// The shard's output directory belongs to the image's user (65532) as it would on a volume
	// with fsGroup in Kubernetes.
	inImage := filepath.Join(dir, "image-out")
	if err := os.Mkdir(inImage, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(inImage, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	shard := []string{"sweep", "demo/policies", "--label", "quick", "--shard", "0/4"}
	begin = time.Now()
	run := append(append([]string{"run"}, podmanRunFlags...), "-v", inImage+":/work/results", tag)
	out, err := pm(append(run, append(shard, "--out", "/work/results")...)...)
	if err != nil {
		t.Fatalf("the sweep shard in the image: %v\n%s", err, out)
	}
	t.Logf("shard run in the image in %v: %s", time.Since(begin).Round(time.Millisecond), lastLine(out))
	if werr == nil {
		if out, err := pm(append(run, "solver", "check")...); err != nil || !strings.Contains(out, "ok") {
			t.Errorf("solver check in the image: %v\n%s", err, out)
		}
	}

	onHost := filepath.Join(dir, "host-out")
	if out, err := exec.Command(bin, append(shard, "--out", onHost)...).CombinedOutput(); err != nil {
		t.Fatalf("the same shard on the host: %v\n%s", err, out)
	}
	want, got := cellFiles(t, onHost), cellFiles(t, inImage)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("the image wrote cells %v, the host %v", got, want)
	}
	for _, f := range want {
		if base := filepath.Base(f); base != "jobs.parquet" && base != "usage.parquet" {
			continue // summary.json and cost.json also hold wall times
		}
		if !bytes.Equal(readFile(t, filepath.Join(inImage, f)), readFile(t, filepath.Join(onHost, f))) {
			t.Errorf("%s differs between the image and the host", f)
		}
	}
}

// cellFiles lists the files under dir/cells, relative to dir.
func cellFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join(dir, "cells"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}

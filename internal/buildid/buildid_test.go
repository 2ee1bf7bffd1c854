package buildid

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCurrentReadsTheGoBuildID: the running test binary's Go build ID is the one `go tool
// buildid` reports, and Current carries it (no SHA-256 needed).
func TestCurrentReadsTheGoBuildID(t *testing.T) {
	path, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gobin, "tool", "buildid", path).Output()
	if err != nil {
		t.Skip(err)
	}
	want := strings.TrimSpace(string(out))
	id := Current()
	if id.GoBuildID != want || id.Binary != "" || id.BinaryErr != "" {
		t.Errorf("Current() = %+v, want Go build ID %q", id, want)
	}
	if Current() != id {
		t.Error("Current changed between calls")
	}
	t.Logf("identified %s in %v", id, HashTime())
}

// TestBinaryWithoutGoBuildID: a file without a Go build ID yields none, and is hashed whole; the
// string form some formats carry is read.
func TestBinaryWithoutGoBuildID(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("#!/bin/sh\necho not go\n"), 0o755)
	if id := readGoBuildID(plain); id != "" {
		t.Errorf("readGoBuildID(plain) = %q", id)
	}
	sum, err := hashFile(plain)
	if want := sha256.Sum256([]byte("#!/bin/sh\necho not go\n")); err != nil || sum != hex.EncodeToString(want[:]) {
		t.Errorf("hashFile = %s, %v", sum, err)
	}
	marked := filepath.Join(dir, "marked")
	os.WriteFile(marked, []byte("\x00\x01junk\xff Go build ID: \"aa/bb/cc/dd\"\n \xffmore"), 0o755)
	if id := readGoBuildID(marked); id != "aa/bb/cc/dd" {
		t.Errorf("readGoBuildID(marked) = %q, want aa/bb/cc/dd", id)
	}
	if _, err := hashFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("hashFile of a missing file: no error")
	}
}

func TestOverrideAndDigest(t *testing.T) {
	real := Current()
	a := ID{Revision: "abc", Binary: "01"}
	restore := Override(a)
	if Current() != a {
		t.Errorf("Current() = %+v under Override(%+v)", Current(), a)
	}
	restore()
	if Current() != real {
		t.Errorf("Current() = %+v after restore, want %+v", Current(), real)
	}
	variants := []ID{a, {Revision: "abc", Modified: true, Binary: "01"}, {Revision: "abd", Binary: "01"}, {Revision: "abc", Binary: "02"}, {}}
	seen := map[string]ID{}
	for _, v := range variants {
		d := v.Digest()
		if len(d) != 64 {
			t.Errorf("%+v: digest %q", v, d)
		}
		if o, dup := seen[d]; dup {
			t.Errorf("%+v and %+v share digest %s", v, o, d)
		}
		seen[d] = v
	}
	if got, want := (ID{Revision: "0123456789abcdef", Modified: true, Binary: "fedcba9876543210"}).String(), "rev 0123456789ab (modified), binary fedcba987654"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// BenchmarkIdentify measures what identifying a build costs once per process: reading the Go
// build ID, and the SHA-256 of the whole executable it saves.
func BenchmarkIdentify(b *testing.B) {
	path, _ := os.Executable()
	st, err := os.Stat(path)
	if err != nil {
		b.Skip(err)
	}
	b.Run("how=gobuildid", func(b *testing.B) {
		for b.Loop() {
			if readGoBuildID(path) == "" {
				b.Fatal("no Go build ID")
			}
		}
	})
	b.Run("how=sha256", func(b *testing.B) {
		for b.Loop() {
			if _, err := hashFile(path); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(st.Size())/1e6, "MB")
	})
}

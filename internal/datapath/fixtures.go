package datapath

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/internal/safefs"
)

// fixtures maps a repository directory ("policies/bpf") to the files of it compiled into
// schedlab, rooted there.
var fixtures = struct {
	sync.Mutex
	byDir map[string]fs.FS
	// written maps a fixture's repository path to where it was written out, and back.
	written map[string]string
	origin  map[string]string
}{byDir: map[string]fs.FS{}, written: map[string]string{}, origin: map[string]string{}}

// RegisterFixtures makes the files of fsys — a package's embedded files, rooted at the package's
// directory — available to Resolve under the repository directory dir ("policies/bpf"), so that
// specs naming them ("policies/bpf/testdata/fig9_jobs.txt") work from any directory. Packages
// call it from init.
func RegisterFixtures(dir string, fsys fs.FS) {
	c, ok := cleanRel(dir)
	if !ok {
		panic("datapath: RegisterFixtures: bad repository directory " + dir)
	}
	fixtures.Lock()
	defer fixtures.Unlock()
	if _, dup := fixtures.byDir[c]; dup {
		panic("datapath: RegisterFixtures: " + c + " registered twice")
	}
	fixtures.byDir[c] = fsys
}

// Fixture finds the repository path p among the embedded fixtures and returns where it is
// written out on disk (writing it first): ok is false when p is not embedded.
func Fixture(p string) (string, bool, error) {
	rp, ok := cleanRel(p)
	if !ok {
		return "", false, nil
	}
	fixtures.Lock()
	defer fixtures.Unlock()
	if d, ok := fixtures.written[rp]; ok && exists(d) { // (a cleaned cache is written again)
		return d, true, nil
	}
	for dir, fsys := range fixtures.byDir {
		sub, ok := strings.CutPrefix(rp, dir+"/")
		if !ok {
			continue
		}
		if _, err := fs.Stat(fsys, sub); err != nil {
			continue
		}
		d, err := writeOut(fsys, dir, sub)
		if err != nil {
			return "", true, fmt.Errorf("datapath: embedded %s: %w", rp, err)
		}
		fixtures.written[rp] = d
		fixtures.origin[d] = rp
		return d, true, nil
	}
	return "", false, nil
}

// fixtureOf returns the repository path of a fixture written out at p.
func fixtureOf(p string) (string, bool) {
	fixtures.Lock()
	defer fixtures.Unlock()
	rp, ok := fixtures.origin[p]
	return rp, ok
}

// CacheDir is where fixtures are written out: UserCache()/fixtures, else the system's temporary
// directory.
func CacheDir() string {
	if d, err := UserCache(); err == nil {
		return filepath.Join(d, "fixtures")
	}
	return filepath.Join(os.TempDir(), "schedlab-fixtures")
}

// writeOut writes the file or directory tree sub of fsys, the fixtures of the repository
// directory dir, to CacheDir()/<content hash>/<dir>/<sub> and returns that path. The directory is named by a hash of the content, so every schedlab that
// embeds the same fixture shares one copy and a changed fixture gets a new one; it appears whole
// or not at all (written in a work directory and renamed), so concurrent processes and kills are
// harmless.
func writeOut(fsys fs.FS, dir, sub string) (string, error) {
	files, err := listFiles(fsys, sub)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", dir)
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	cache := CacheDir()
	final := filepath.Join(cache, hex.EncodeToString(h.Sum(nil))[:16])
	dst := filepath.Join(final, filepath.FromSlash(dir), filepath.FromSlash(sub))
	if exists(dst) {
		return dst, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	work, err := safefs.NewWorkDir(cache, filepath.Base(final))
	if err != nil {
		return "", err
	}
	defer work.Remove()
	stage := filepath.Join(work.Path, "out")
	for _, f := range files {
		target := filepath.Join(stage, filepath.FromSlash(dir), filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return "", err
		}
		if err := copyFile(fsys, f, target); err != nil {
			return "", err
		}
	}
	if err := os.Rename(stage, final); err != nil && !exists(dst) {
		return "", err // another process may have put the same content there meanwhile
	}
	return dst, nil
}

// listFiles lists the regular files at or under name in fsys, sorted.
func listFiles(fsys fs.FS, name string) ([]string, error) {
	var files []string
	err := fs.WalkDir(fsys, name, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err == nil && len(files) == 0 {
		err = errors.New("no files")
	}
	slices.Sort(files)
	return files, err
}

func copyFile(fsys fs.FS, name, target string) error {
	src, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer src.Close()
	return safefs.CopyFile(target, src)
}

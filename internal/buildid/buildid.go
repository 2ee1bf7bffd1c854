// Package buildid identifies the running build of schedlab: the VCS revision and dirty flag the
// Go toolchain stamped into the binary (when it did) and a hash of the executable's content, so
// that `go run`, test binaries and builds of uncommitted trees are told apart too. Sweep cache
// keys and result provenance carry it: a cell computed by one build is never reused by another.
//
// The content hash is the Go build ID the go command writes into every binary it links (its
// last part is a hash of the linked file's content, computed at build time), read from the
// executable's first page in about 0.1 ms. A binary without one (linked with -buildid= or by
// another toolchain) is hashed whole with SHA-256 instead: about 0.23 s of CPU for schedlab's
// 77 MB binary on the project machine, once per process.
package buildid

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ID is a build's identity.
type ID struct {
	// Revision is the VCS revision (vcs.revision), "" when the build carries none (go run,
	// test binaries, -buildvcs=false).
	Revision string `json:"vcs_revision,omitempty"`
	// Modified is vcs.modified: the tree had uncommitted changes when it was built.
	Modified bool `json:"vcs_modified,omitempty"`
	// GoBuildID is the build ID the go command wrote into the executable
	// (".../<content hash>"); "" when it has none.
	GoBuildID string `json:"go_build_id,omitempty"`
	// Binary is the hex SHA-256 of the executable, computed only when it has no GoBuildID; ""
	// otherwise, or if it could not be read (BinaryErr then says why).
	Binary    string `json:"binary_sha256,omitempty"`
	BinaryErr string `json:"binary_error,omitempty"`
}

// String formats the identity briefly, e.g. "rev 1a2b3c4d5e6f (modified), binary 9f8e7d6c5b4a".
func (id ID) String() string {
	var parts []string
	if id.Revision != "" {
		r := "rev " + short(id.Revision)
		if id.Modified {
			r += " (modified)"
		}
		parts = append(parts, r)
	}
	switch {
	case id.GoBuildID != "":
		parts = append(parts, "binary "+short(contentPart(id.GoBuildID)))
	case id.Binary != "":
		parts = append(parts, "binary "+short(id.Binary))
	default:
		parts = append(parts, "binary unknown")
	}
	return strings.Join(parts, ", ")
}

// Digest is a hex SHA-256 over the whole identity, for cache keys.
func (id ID) Digest() string {
	sum := sha256.Sum256(fmt.Appendf(nil, "rev=%s\x00modified=%t\x00gobuildid=%s\x00binary=%s\x00err=%s", id.Revision, id.Modified, id.GoBuildID, id.Binary, id.BinaryErr))
	return hex.EncodeToString(sum[:])
}

// contentPart is the last part of a Go build ID: the hash of the linked binary's content.
func contentPart(goBuildID string) string {
	return goBuildID[strings.LastIndexByte(goBuildID, '/')+1:]
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

var (
	once     sync.Once
	current  ID
	hashTime time.Duration

	omu      sync.Mutex
	override *ID
)

// Current returns the running build's identity. The executable is hashed once per process, on
// the first call or from Prefetch (about 0.23 s of CPU for schedlab's 77 MB binary without
// SHA instructions; the CPU of a 2-core Xeon at 2.5 GHz).
func Current() ID {
	omu.Lock()
	o := override
	omu.Unlock()
	if o != nil {
		return *o
	}
	identify()
	return current
}

func identify() {
	once.Do(func() {
		begin := time.Now()
		current = compute()
		hashTime = time.Since(begin)
	})
}

// Prefetch starts identifying the running build in the background, so that hashing the
// executable overlaps with other work (planning a sweep, a replay) before Current is needed.
func Prefetch() { go identify() }

// HashTime is how long identifying the running build took (hashing the executable, once per
// process); it identifies the build first if that has not happened yet.
func HashTime() time.Duration {
	identify()
	return hashTime
}

// Override makes Current return id until the returned function restores the real identity: a
// test hook that simulates another build of schedlab in one process.
func Override(id ID) (restore func()) {
	omu.Lock()
	prev := override
	override = &id
	omu.Unlock()
	return func() {
		omu.Lock()
		override = prev
		omu.Unlock()
	}
}

func compute() ID {
	var id ID
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				id.Revision = s.Value
			case "vcs.modified":
				id.Modified = s.Value == "true"
			}
		}
	}
	path, err := os.Executable()
	if err != nil {
		id.BinaryErr = err.Error()
		return id
	}
	if id.GoBuildID = readGoBuildID(path); id.GoBuildID != "" {
		return id
	}
	sum, err := hashFile(path)
	if err != nil {
		id.BinaryErr = err.Error()
	}
	id.Binary = sum
	return id
}

// readGoBuildID reads the build ID the go command wrote into an executable: an ELF note "Go" of
// type 4, or elsewhere (Mach-O, PE) the string `\xff Go build ID: "…"\n \xff` near the start of
// the file (both as the Go toolchain's cmd/internal/buildid reads them). It returns "" if there
// is none.
func readGoBuildID(path string) string {
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type != elf.PT_NOTE {
				continue
			}
			note, err := io.ReadAll(io.LimitReader(p.Open(), 1<<16))
			if err != nil {
				continue
			}
			if id := goNote(note, f.ByteOrder); id != "" {
				return id
			}
		}
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 32<<10)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	const prefix, suffix = "\xff Go build ID: \"", "\"\n \xff"
	i := bytes.Index(head, []byte(prefix))
	if i < 0 {
		return ""
	}
	rest := head[i+len(prefix):]
	j := bytes.Index(rest, []byte(suffix))
	if j < 0 {
		return ""
	}
	id, err := strconv.Unquote(`"` + string(rest[:j]) + `"`)
	if err != nil {
		return ""
	}
	return id
}

// goNote finds the Go build ID note (name "Go", type 4) in an ELF note segment.
func goNote(b []byte, order binary.ByteOrder) string {
	for len(b) >= 12 {
		namesz, descsz, typ := order.Uint32(b), order.Uint32(b[4:]), order.Uint32(b[8:])
		b = b[12:]
		nameEnd := align4(int(namesz))
		descEnd := nameEnd + align4(int(descsz))
		if namesz > 1<<16 || descsz > 1<<16 || descEnd > len(b) {
			return ""
		}
		if typ == 4 && strings.TrimRight(string(b[:namesz]), "\x00") == "Go" {
			return string(b[nameEnd : nameEnd+int(descsz)])
		}
		b = b[descEnd:]
	}
	return ""
}

func align4(n int) int { return (n + 3) &^ 3 }

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Package buildid identifies the running build of schedlab: the VCS revision and dirty flag the
// Go toolchain stamped into the binary (when it did) and a SHA-256 of the executable itself, so
// that `go run`, test binaries and builds of uncommitted trees are told apart too. Sweep cache
// keys and result provenance carry it: a cell computed by one build is never reused by another.
package buildid

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"
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
	// Binary is the hex SHA-256 of the executable; "" only if it could not be read (BinaryErr
	// then says why).
	Binary    string `json:"binary_sha256"`
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
	if id.Binary != "" {
		parts = append(parts, "binary "+short(id.Binary))
	} else {
		parts = append(parts, "binary unknown")
	}
	return strings.Join(parts, ", ")
}

// Digest is a hex SHA-256 over the whole identity, for cache keys.
func (id ID) Digest() string {
	sum := sha256.Sum256(fmt.Appendf(nil, "rev=%s\x00modified=%t\x00binary=%s\x00err=%s", id.Revision, id.Modified, id.Binary, id.BinaryErr))
	return hex.EncodeToString(sum[:])
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
// the first call (about 0.1 s for schedlab's ~60 MB binary).
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
	sum, err := hashExecutable()
	if err != nil {
		id.BinaryErr = err.Error()
	}
	id.Binary = sum
	return id
}

func hashExecutable() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", err
	}
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

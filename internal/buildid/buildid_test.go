package buildid

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"
)

func TestCurrentHashesTheExecutable(t *testing.T) {
	path, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	sum := sha256.Sum256(b)
	id := Current()
	if id.Binary != hex.EncodeToString(sum[:]) || id.BinaryErr != "" {
		t.Errorf("Current().Binary = %q (err %q), want the executable's SHA-256 %x", id.Binary, id.BinaryErr, sum)
	}
	if Current() != id {
		t.Error("Current changed between calls")
	}
	t.Logf("identified %s in %v", id, HashTime())
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

// BenchmarkHashExecutable measures what identifying a build costs once per process.
func BenchmarkHashExecutable(b *testing.B) {
	path, _ := os.Executable()
	st, err := os.Stat(path)
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		if _, err := hashExecutable(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Size())/1e6, "MB")
}

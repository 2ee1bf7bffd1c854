package canonical

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestCRCFileMatchesScan checks that crcFile, which checksums a file as it is written in pieces,
// finds the same CRC and markers as scanning the whole file, however the pieces cut the markers.
func TestCRCFileMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		data := make([]byte, rng.IntN(4000))
		for i := range data {
			data[i] = "ab:1.0"[rng.IntN(6)]
		}
		for range rng.IntN(4) {
			if len(data) < 30 {
				break
			}
			at := rng.IntN(len(data) - 26)
			copy(data[at:], checksumMarker+placeholder)
		}
		f, err := os.Create(filepath.Join(t.TempDir(), "f"))
		if err != nil {
			t.Fatal(err)
		}
		c := newCRCFile(f)
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN([]int{3, 30, 300}[trial%3]))
			if _, err := c.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		c.scan.feed(c.tail, true)
		f.Close()
		crc, found := scanChecksumBytes(data)
		if c.scan.crc != crc || !reflect.DeepEqual(c.scan.found, found) {
			t.Fatalf("trial %d: crc %x %v, want %x %v", trial, c.scan.crc, c.scan.found, crc, found)
		}
	}
}

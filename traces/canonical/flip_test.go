package canonical

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reseal writes into b the checksum of its current bytes, as a file damaged before it was sealed
// (or tampered with and resealed) carries: the checksum no longer shields the libraries.
func reseal(b []byte) []byte {
	crc, found := scanChecksumBytes(b)
	for _, o := range found {
		copy(b[o.off:], hex8(crc))
	}
	return b
}

// TestResealedByteFlips flips bytes of a small Arrow file and of a small Parquet file, one at a
// time, reseals the checksum and reads the result: each read must return a workload or an error
// naming the file, never crash (a panic inside arrow-go, a fault on the read-only mapping, or an
// allocation sized by a corrupt length). Every fourth byte of the footer (where the libraries
// read the sizes they allocate by) and every 29th byte elsewhere, each with a mask of its own,
// keep the test to a few seconds.
func TestResealedByteFlips(t *testing.T) {
	for _, ext := range []string{".arrow", ".parquet"} {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			good := filepath.Join(dir, "good"+ext)
			if err := Write(good, fuzzSeedWorkload()); err != nil {
				t.Fatal(err)
			}
			orig, err := os.ReadFile(good)
			if err != nil {
				t.Fatal(err)
			}
			// Arrow ends in the footer's length and "ARROW1", Parquet in its length and "PAR1".
			tail := 10
			if ext == ".parquet" {
				tail = 8
			}
			footer := len(orig) - tail - int(binary.LittleEndian.Uint32(orig[len(orig)-tail:]))
			p := filepath.Join(dir, "flip"+ext)
			masks := []byte{0x01, 0x80, 0xff, 0x10, 0x7f}
			reads := 0
			for off := range orig {
				if (off < footer && off%29 != 0) || (off >= footer && off%4 != 0) {
					continue
				}
				mask := masks[off%len(masks)]
				b := append([]byte(nil), orig...)
				b[off] ^= mask
				if err := os.WriteFile(p, reseal(b), 0o644); err != nil {
					t.Fatal(err)
				}
				reads++
				if _, err := Read(p); err != nil && (!strings.HasPrefix(err.Error(), "canonical: ") || !strings.Contains(err.Error(), p)) {
					t.Fatalf("byte %d ^ %#x: error without package prefix or file name: %v", off, mask, err)
				}
			}
			t.Logf("%d resealed flips of a %d-byte file (footer from byte %d) read without a crash", reads, len(orig), footer)
		})
	}
}

package inflate

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/schedlab/schedlab/internal/testutil"
)

// loadJobEvents reads the real trace parts into memory (at most max files,
// all if max <= 0), skipping the test if the shared data is absent.
func loadJobEvents(tb testing.TB, max int) [][]byte {
	tb.Helper()
	dir := testutil.SharedData(tb, "google2011", "job_events")
	files, _ := filepath.Glob(filepath.Join(dir, "*.csv.gz"))
	if len(files) == 0 {
		tb.Skipf("no job_events parts in %s", dir)
	}
	sort.Strings(files)
	if max > 0 && len(files) > max {
		files = files[:max]
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// BenchmarkDecode decompresses all job_events parts per iteration. SetBytes
// counts compressed bytes (MB/s is input throughput); out-MB/s is output.
func BenchmarkDecode(b *testing.B) {
	parts := loadJobEvents(b, 0)
	var inBytes, outBytes int64
	for _, p := range parts {
		inBytes += int64(len(p))
		zr, err := stdgzip.NewReader(bytes.NewReader(p))
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, zr)
		if err != nil {
			b.Fatal(err)
		}
		outBytes += n
	}
	// report adds output throughput, and input/output throughput per CPU
	// second (less sensitive to other load on the machine than wall time).
	var cpu0 time.Duration
	report := func(b *testing.B) {
		cpu := (testutil.CPUTime() - cpu0).Seconds()
		b.ReportMetric(float64(outBytes)*float64(b.N)/b.Elapsed().Seconds()/1e6, "out-MB/s")
		if cpu > 0 {
			b.ReportMetric(float64(inBytes)*float64(b.N)/cpu/1e6, "in-MB/cpu-s")
			b.ReportMetric(float64(outBytes)*float64(b.N)/cpu/1e6, "out-MB/cpu-s")
		}
	}
	b.Run("impl=ours", func(b *testing.B) {
		var buf []byte
		b.SetBytes(inBytes)
		b.ResetTimer()
		cpu0 = testutil.CPUTime()
		for i := 0; i < b.N; i++ {
			for _, p := range parts {
				var err error
				buf, err = Decode(buf[:0], p, 1<<30)
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b)
	})
	// The streaming decoders are driven as the importer drove klauspost's: Reset on an
	// in-memory file, then Read into a reused 256 KiB buffer.
	streaming := func(zr interface {
		Reset(io.Reader) error
		Read([]byte) (int, error)
	}) func(*testing.B) {
		return func(b *testing.B) {
			buf := make([]byte, 256<<10)
			var br bytes.Reader
			b.SetBytes(inBytes)
			b.ResetTimer()
			cpu0 = testutil.CPUTime()
			for i := 0; i < b.N; i++ {
				for _, p := range parts {
					br.Reset(p)
					if err := zr.Reset(&br); err != nil {
						b.Fatal(err)
					}
					for {
						_, err := zr.Read(buf)
						if err == io.EOF {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			report(b)
		}
	}
	b.Run("impl=klauspost", streaming(new(kgzip.Reader)))
	b.Run("impl=stdlib", streaming(new(stdgzip.Reader)))
}

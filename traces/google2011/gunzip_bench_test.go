package google2011

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/schedlab/schedlab/internal/testutil"
)

// BenchmarkGunzip compares the two ways the reader can feed a gzip part to klauspost/compress:
// streamed from the file through a bufio.Reader (mode=stream), or read whole into memory and
// inflated from a bytes.Reader (mode=whole). Each iteration inflates all 500 job_events parts
// both ways, alternating, into chunkSize buffers as the reader does; whole-vs-stream-cpu is the
// ratio of their CPU times in the same run (below 1: whole is faster).
func BenchmarkGunzip(b *testing.B) {
	files, size := jobParts(b, 500)
	b.SetBytes(size)
	raw := bufio.NewReaderSize(nil, 256<<10)
	var wholeBuf []byte
	out := make([]byte, chunkSize)
	var gz gzip.Reader
	inflate := func(src io.Reader) {
		if err := gz.Reset(src); err != nil {
			b.Fatal(err)
		}
		for {
			_, err := fill(&gz, out)
			if err == io.EOF {
				return
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	var cpu [2]time.Duration
	for range b.N {
		for mode := range 2 {
			t0 := testutil.CPUTime()
			for _, name := range files {
				f, err := os.Open(name)
				if err != nil {
					b.Fatal(err)
				}
				if mode == 0 {
					raw.Reset(f)
					inflate(raw)
				} else {
					st, err := f.Stat()
					if err != nil {
						b.Fatal(err)
					}
					if int64(cap(wholeBuf)) < st.Size() {
						wholeBuf = make([]byte, st.Size())
					}
					n, err := io.ReadFull(f, wholeBuf[:st.Size()])
					if err != nil {
						b.Fatal(err)
					}
					inflate(bytes.NewReader(wholeBuf[:n]))
				}
				f.Close()
			}
			cpu[mode] += testutil.CPUTime() - t0
		}
	}
	b.ReportMetric(float64(size)*float64(b.N)/1e6/cpu[0].Seconds(), "stream-MB/cpu-s")
	b.ReportMetric(float64(size)*float64(b.N)/1e6/cpu[1].Seconds(), "whole-MB/cpu-s")
	b.ReportMetric(cpu[1].Seconds()/cpu[0].Seconds(), "whole-vs-stream-cpu")
}

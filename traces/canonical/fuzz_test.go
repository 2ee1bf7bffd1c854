package canonical

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// fuzzSeedWorkload is a small workload using every column: two jobs, a DAG, task durations, a
// placement constraint and a utility.
func fuzzSeedWorkload() *traces.Workload {
	return &traces.Workload{Name: "fuzz", Dims: []string{"cpu"}, Cluster: traces.Uniform(2, traces.VecOf(1), 0), Jobs: []traces.Job{
		{ID: 1, Submit: 1, Features: traces.Features{User: "u"}, Stages: []traces.Stage{{Name: "a", Tasks: 2, Demand: traces.VecOf(0.5), Duration: 3, TaskDurations: []traces.Time{3, 4}}, {Name: "b", Tasks: 1, Demand: traces.VecOf(1), Duration: 2, Parents: []int32{0}}}},
		{ID: 2, Submit: 5, Placement: traces.Placement{Kind: traces.PlacementRack, Slowdown: 1.5}, Utility: &traces.Utility{Kind: traces.UtilityLinear, Priority: 1, Slope: -1, Target: 9}, Stages: []traces.Stage{{Name: "c", Tasks: 1, Demand: traces.VecOf(0.25), Duration: 1}}},
	}}
}

// fuzzLimits keep what a fuzzed file can make the reader allocate small, as the limits derived
// from memory do for schedlab's commands.
var fuzzLimits = traces.Limits{StageTasks: 1 << 16, JobTasks: 1 << 16, Tasks: 1 << 18, Machines: 1 << 12, Memory: 64 << 20, JobBytes: 2048, TaskBytes: 64}

// fuzzMaxInput bounds the raw inputs tried: the seeds are about 9 KB.
const fuzzMaxInput = 64 << 10

// fuzzSeeds are the seed workload written as Arrow and as Parquet, once per process.
var fuzzSeeds = sync.OnceValues(func() ([2][]byte, error) {
	var seeds [2][]byte
	dir, err := os.MkdirTemp("", "canonical-fuzz")
	if err != nil {
		return seeds, err
	}
	defer os.RemoveAll(dir)
	for i, ext := range []string{".arrow", ".parquet"} {
		p := filepath.Join(dir, "seed"+ext)
		if err := Write(p, fuzzSeedWorkload()); err != nil {
			return seeds, err
		}
		if seeds[i], err = os.ReadFile(p); err != nil {
			return seeds, err
		}
	}
	return seeds, nil
})

// readFuzzed reads data as a canonical file named name, with limits and validation as
// schedlab's commands read files, after resealing it (its checksum set to match), so that changes
// reach the Arrow and Parquet libraries and the decoder instead of stopping at the checksum
// (TestReadErrors covers that). It reads from memory, so an execution costs a read and nothing
// more. It must return a workload or an error naming the file, never panic or allocate by a size
// the file states.
func readFuzzed(t *testing.T, data []byte) {
	const name = "fuzz.bin"
	data = reseal(data)
	r, err := open(name, data, bytes.NewReader(data), Options{Limits: fuzzLimits, Validate: true})
	if err == nil {
		_, err = readAll(r)
	}
	if err != nil && (!strings.HasPrefix(err.Error(), "canonical: ") || !strings.Contains(err.Error(), name)) {
		t.Fatalf("error without package prefix or file name: %v", err)
	}
}

// FuzzRead overwrites bytes of a valid canonical file — the seed workload as Arrow (format even)
// or Parquet (odd) — and reads the result: edits is a list of (offset, value) triples, a 16-bit
// little-endian offset (modulo the file's size) and the byte to write there. The fuzzer thus
// mutates a few bytes rather than a 9-KB file, which keeps its inputs small and their
// minimization fast (on whole files, the default minimization of each new input took the whole
// run: 11 executions in 20 s), while every byte of both formats, sizes and lengths included,
// can be reached.
func FuzzRead(f *testing.F) {
	f.Add(byte(0), []byte{})
	f.Add(byte(1), []byte{})
	f.Add(byte(0), []byte{0x40, 0x00, 0xff, 0x10, 0x20, 0x7f})
	f.Add(byte(1), []byte{0x00, 0x10, 0x01, 0x80, 0x20, 0xff})
	f.Fuzz(func(t *testing.T, format byte, edits []byte) {
		seeds, err := fuzzSeeds()
		if err != nil {
			t.Fatal(err)
		}
		if len(edits) > 3*64 {
			return
		}
		data := bytes.Clone(seeds[format%2])
		for i := 0; i+3 <= len(edits); i += 3 {
			off := int(binary.LittleEndian.Uint16(edits[i:])) % len(data)
			data[off] = edits[i+2]
		}
		readFuzzed(t, data)
	})
}

// FuzzReadRaw feeds arbitrary bytes (up to 64 KB) to the reader as a canonical file, resealed as
// FuzzRead's are: other magic bytes, truncations, insertions.
func FuzzReadRaw(f *testing.F) {
	seeds, err := fuzzSeeds()
	if err != nil {
		f.Fatal(err)
	}
	for _, b := range seeds {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzMaxInput {
			return
		}
		readFuzzed(t, bytes.Clone(data))
	})
}

// FuzzClusterMeta feeds arbitrary JSON to the cluster metadata decoder, which expands run-length
// encoded machines: it must refuse a machine count over the limit before allocating it.
func FuzzClusterMeta(f *testing.F) {
	for _, s := range []string{
		`{"pooled":false,"n":2,"capacity":[[2,1000000,0,0,0,0,0]]}`,
		`{"pooled":true,"n":3,"names":["a","b","c"],"capacity":[[1,1,2,0,0,0,0],[2,5,5,0,0,0,0]],"racks":["r","r","s"],"gpu":[1]}`,
		`{"pooled":false,"n":67108864,"capacity":[[67108864,1000000,1000000,0,0,0,0]]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, js string) {
		m, _, err := parseMeta(fuzzLimits, func(k string) (string, bool) {
			switch k {
			case KeyVersion:
				return SchemaVersion, true
			case KeyCluster:
				return js, true
			}
			return "", false
		})
		if err == nil && int64(len(m.Cluster.Machines)) > fuzzLimits.Machines {
			t.Fatalf("%d machines decoded, over the limit of %d", len(m.Cluster.Machines), fuzzLimits.Machines)
		}
	})
}

package canonical

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/schedlab/schedlab/traces"
)

// edgeWorkload exercises every field and the nil/empty distinctions the format must keep.
func edgeWorkload() *traces.Workload {
	return &traces.Workload{
		Name:   "edge ∑ cases",
		Source: "canonical_test",
		Dims:   []string{"cpu", "mem", "disk", "net", "gpu", "x"},
		Cluster: traces.Cluster{Pooled: true, Machines: []traces.Machine{
			{Name: "m0", Capacity: traces.VecOf(1, 1, 1, 1, 1, 1), Rack: "r0", GPU: true, Platform: "p"},
			{Name: "m1", Capacity: traces.VecOf(0.5, 0.25), Rack: "r1"},
		}},
		Jobs: []traces.Job{
			{ID: 1, Name: "no stages", Submit: 0},
			{ID: 2, Name: "", Submit: 5, Queue: "q", Class: "slo", Priority: -3, Weight: 2.5,
				Features: traces.Features{User: "u", JobName: "jn", LogicalJobName: "ljn"},
				Deadline: 99, Utility: &traces.Utility{Kind: traces.UtilitySigmoid, Priority: 1, Decay: 0.5, Target: 77},
				Placement: traces.Placement{Kind: traces.PlacementRack, Slowdown: 1.5},
				Stages: []traces.Stage{
					{Name: "a", Tasks: 3, Demand: traces.VecOf(0.19, 0.17), Duration: 10, Estimate: 12},
					{Name: "b", Tasks: 2, Demand: traces.VecOf(0.1), Duration: 5, TaskDurations: []traces.Time{4, 6}, Parents: []int32{0}},
					{Name: "c", Tasks: 1, Demand: traces.Vec{1, 2, 3, 4, 5, 6}, Duration: 1, TaskDurations: []traces.Time{}, Parents: []int32{}},
					{Name: "d", Tasks: 1, Demand: traces.VecOf(0.2), Duration: 1, Parents: []int32{0, 1, 2}},
				}},
			{ID: 3, Submit: 5, Utility: &traces.Utility{}, Placement: traces.Placement{Kind: traces.PlacementGPU, Hard: true}, Stages: []traces.Stage{{Tasks: 1, Duration: 1}}},
			{ID: -4, Submit: math.MaxInt64, Priority: math.MinInt32, Weight: math.Inf(1), Deadline: math.MinInt64,
				Placement: traces.Placement{Kind: "x\x00y", Hard: true, Slowdown: math.Inf(-1)}, // not validated
				Utility:   &traces.Utility{Kind: traces.UtilityLinear, Priority: -0.0, Slope: -1e-300, Target: -1},
				Features:  traces.Features{User: "ü\x00ser", JobName: strings.Repeat("x", 1000)},
				Stages:    []traces.Stage{{Name: "only", Tasks: math.MaxInt32, Demand: traces.Vec{-1, math.MaxInt64}, Duration: -5, Estimate: math.MaxInt64}}},
		},
	}
}

// randomWorkload builds n multi-stage jobs with repeated strings, spanning many batches.
func randomWorkload(rng *rand.Rand, n int) *traces.Workload {
	w := &traces.Workload{Name: "random", Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(3, traces.VecOf(1, 1), 2)}
	users := []string{"alice", "bob", "carol", "dave"}
	var t traces.Time
	for i := range n {
		t += rng.Int64N(1000)
		ns := 1 + rng.IntN(4)
		if rng.IntN(50) == 0 {
			ns = 40 + rng.IntN(200)
		}
		j := traces.Job{ID: int64(i), Name: "job" + string(rune('a'+i%26)), Submit: t, Class: []string{"be", "slo"}[rng.IntN(2)],
			Priority: rng.IntN(12), Features: traces.Features{User: users[rng.IntN(len(users))], JobName: "n" + string(rune('A'+rng.IntN(26)))}}
		// Placement follows the id, not the generator, so the draws are those of earlier versions.
		switch i % 5 {
		case 1:
			j.Placement = traces.Placement{Kind: traces.PlacementGPU, Hard: true}
		case 2:
			j.Placement = traces.Placement{Kind: traces.PlacementRack, Slowdown: 1 + float64(i%7)/10}
		}
		for s := range ns {
			st := traces.Stage{Name: "s", Tasks: int32(1 + rng.IntN(8)), Demand: traces.VecOf(rng.Float64(), rng.Float64()), Duration: 1 + rng.Int64N(1e9)}
			if rng.IntN(3) == 0 {
				st.TaskDurations = make([]traces.Time, st.Tasks)
				for k := range st.TaskDurations {
					st.TaskDurations[k] = 1 + rng.Int64N(1e6)
				}
			}
			if s > 0 {
				st.Parents = []int32{int32(rng.IntN(s))}
			}
			// Task histories follow the ids too, so the draws stay those of earlier versions.
			if (i+s)%4 == 3 {
				st.History = make([]traces.TaskHistory, st.Tasks)
				for k := range st.History {
					a := int32(1 + (i+k)%5)
					st.History[k] = traces.TaskHistory{Attempts: a, Evictions: int32(k) % a, Outcome: traces.TaskOutcome((i + s + k) % traces.NumTaskOutcomes)}
				}
			}
			j.Stages = append(j.Stages, st)
		}
		w.Jobs = append(w.Jobs, j)
	}
	return w
}

func checkSame(t *testing.T, got, want *traces.Workload) {
	t.Helper()
	if got.Hash() != want.Hash() {
		t.Errorf("hash changed: %s, want %s", got.Hash(), want.Hash())
	}
	if got.Name != want.Name || got.Source != want.Source || !reflect.DeepEqual(got.Dims, want.Dims) || !reflect.DeepEqual(got.Cluster, want.Cluster) {
		t.Errorf("workload fields differ:\n got %q %q %v %+v\nwant %q %q %v %+v", got.Name, got.Source, got.Dims, got.Cluster, want.Name, want.Source, want.Dims, want.Cluster)
	}
	if len(got.Jobs) != len(want.Jobs) {
		t.Fatalf("%d jobs, want %d", len(got.Jobs), len(want.Jobs))
	}
	for i := range want.Jobs {
		if !reflect.DeepEqual(got.Jobs[i], want.Jobs[i]) {
			t.Fatalf("job %d differs:\n got %+v\nwant %+v", i, got.Jobs[i], want.Jobs[i])
		}
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name string
		w    *traces.Workload
	}{
		{"edge", edgeWorkload()},
		{"empty", &traces.Workload{Name: "empty", Dims: []string{"cpu"}}},
		{"cluster", &traces.Workload{Dims: []string{"cpu", "mem"}, Cluster: traces.Cluster{Machines: []traces.Machine{
			{Name: "a", Capacity: traces.VecOf(1, 1)}, {Name: "b", Capacity: traces.VecOf(1, 1), GPU: true},
			{Name: "m2", Capacity: traces.VecOf(2, 1), Platform: "x"}, {Name: "", Capacity: traces.VecOf(2, 1)},
		}}}},
		{"empty cluster", &traces.Workload{Dims: []string{}, Cluster: traces.Cluster{Machines: []traces.Machine{}, Pooled: true}}},
		{"uniform", &traces.Workload{Dims: []string{"cpu"}, Cluster: traces.Uniform(1000, traces.VecOf(1), 40)}},
		{"random", randomWorkload(rng, 3000)},
	}
	if !testing.Short() && !raceEnabled {
		// Over 64k stage rows: several row groups, and Parquet read batches that split jobs.
		cases = append(cases, struct {
			name string
			w    *traces.Workload
		}{"large", randomWorkload(rng, 40000)})
	}
	for _, c := range cases {
		for _, ext := range []string{".parquet", ".arrow"} {
			t.Run(c.name+ext, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "w"+ext)
				if err := Write(path, c.w); err != nil {
					t.Fatal(err)
				}
				got, err := Read(path)
				if err != nil {
					t.Fatal(err)
				}
				checkSame(t, got, c.w)
				// Streaming read gives the same jobs.
				r, err := Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				n := 0
				for {
					j, err := r.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(*j, c.w.Jobs[n]) {
						t.Fatalf("streamed job %d differs", n)
					}
					n++
				}
				if n != len(c.w.Jobs) {
					t.Fatalf("streamed %d jobs, want %d", n, len(c.w.Jobs))
				}
				if want := map[string]Format{".parquet": Parquet, ".arrow": Arrow}[ext]; r.Format() != want {
					t.Errorf("format %v, want %v", r.Format(), want)
				}
			})
		}
	}
}

// TestSmallBatches forces jobs to straddle record batches on the Writer side.
func TestSmallBatches(t *testing.T) {
	w := randomWorkload(rand.New(rand.NewPCG(3, 4)), 60)
	for _, ext := range []string{".parquet", ".arrow"} {
		path := filepath.Join(t.TempDir(), "w"+ext)
		cw, err := NewWriter(path, MetaOf(w), WithBatchRows(7))
		if err != nil {
			t.Fatal(err)
		}
		for i := range w.Jobs {
			if err := cw.Append(&w.Jobs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if cw.Jobs() != int64(len(w.Jobs)) {
			t.Errorf("Jobs() = %d", cw.Jobs())
		}
		if err := cw.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		checkSame(t, got, w)
	}
}

func TestSortBySubmit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name    string
		jobs    int
		runRows int
	}{
		{"in-memory", 300, 0},
		{"few-runs", 2000, 500},
		{"multi-pass", 3000, 20}, // > maxFanIn runs
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := randomWorkload(rng, tc.jobs)
			// Shuffle and create duplicate (submit, id) keys told apart by Name.
			rng.Shuffle(len(w.Jobs), func(i, j int) { w.Jobs[i], w.Jobs[j] = w.Jobs[j], w.Jobs[i] })
			for i := 0; i+1 < len(w.Jobs); i += 10 {
				w.Jobs[i+1].Submit, w.Jobs[i+1].ID = w.Jobs[i].Submit, w.Jobs[i].ID
				w.Jobs[i+1].Name = "dup"
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "sorted.arrow")
			cw, err := NewWriter(path, MetaOf(w), WithSortBySubmit(tc.runRows, ""))
			if err != nil {
				t.Fatal(err)
			}
			for i := range w.Jobs {
				j := w.Jobs[i]
				if err := cw.Append(&j); err != nil {
					t.Fatal(err)
				}
				// The writer must have copied the job: scribbling on it changes nothing.
				if len(j.Stages) > 0 {
					orig := j.Stages[0].Duration
					j.Stages[0].Duration = -1
					w.Jobs[i].Stages[0].Duration = orig
				}
			}
			if err := cw.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			want := *w
			want.Jobs = append([]traces.Job(nil), w.Jobs...)
			want.SortJobs()
			if got.Hash() != want.Hash() {
				for i := range want.Jobs {
					if !reflect.DeepEqual(got.Jobs[i], want.Jobs[i]) {
						t.Fatalf("job %d: got id %d submit %d %q, want id %d submit %d %q", i, got.Jobs[i].ID, got.Jobs[i].Submit, got.Jobs[i].Name, want.Jobs[i].ID, want.Jobs[i].Submit, want.Jobs[i].Name)
					}
				}
				t.Fatal("hash differs")
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("temporary files left behind: %v", names)
			}
		})
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	w := randomWorkload(rand.New(rand.NewPCG(7, 8)), 100)
	cw, err := NewWriter(filepath.Join(dir, "x.parquet"), MetaOf(w), WithSortBySubmit(10, ""))
	if err != nil {
		t.Fatal(err)
	}
	for i := range w.Jobs {
		if err := cw.Append(&w.Jobs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := cw.Append(&w.Jobs[0]); err == nil {
		t.Error("Append after Abort succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Abort left %d files", len(entries))
	}
}

func TestFormatOf(t *testing.T) {
	for name, want := range map[string]Format{"a.parquet": Parquet, "b.PQ": Parquet, "c.arrow": Arrow, "d.ipc": Arrow, "e.feather": Arrow, "f.csv": 0, "g": 0} {
		got, err := FormatOf(name)
		if got != want || (want == 0) != (err != nil) {
			t.Errorf("FormatOf(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := NewWriter(filepath.Join(t.TempDir(), "x.json"), Meta{}); err == nil || !strings.Contains(err.Error(), "unknown extension") {
		t.Errorf("NewWriter(.json) error = %v", err)
	}
}

// writeRaw writes an Arrow IPC file with an arbitrary schema and one record built by fill.
func writeRaw(t *testing.T, path string, schema *arrow.Schema, rec arrow.Record) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	if rec != nil {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	seal(t, f)
}

// seal fills in the checksum placeholders of a hand-made file, if it has any.
func seal(t *testing.T, f *os.File) {
	t.Helper()
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	_, found, err := scanChecksum(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		if err := sealChecksum(f, len(found)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	good := edgeWorkload()
	goodArrow := filepath.Join(dir, "good.arrow")
	goodParquet := filepath.Join(dir, "good.parquet")
	for _, p := range []string{goodArrow, goodParquet} {
		if err := Write(p, good); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cut := func(src, name string, keep func(n int) int) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		return write(name, b[:keep(len(b))])
	}
	md, err := Meta{Dims: []string{"cpu"}}.metadata()
	if err != nil {
		t.Fatal(err)
	}
	wrongVersion := arrow.NewSchema(Schema.Fields(), func() *arrow.Metadata {
		m := arrow.NewMetadata([]string{KeyVersion, KeyChecksum}, []string{"999", checksumMarker + placeholder})
		return &m
	}())
	missingCol := arrow.NewSchema(Schema.Fields()[1:], &md)
	badType := func() *arrow.Schema {
		fs := Schema.Fields()
		fs[0].Type = arrow.BinaryTypes.String
		return arrow.NewSchema(fs, &md)
	}()
	noMeta := Schema

	// A record whose second row claims to be stage 5 of a 2-stage job.
	enc := newEncoder(arrow.NewSchema(Schema.Fields(), &md))
	if err := enc.add(&traces.Job{ID: 9, Stages: []traces.Stage{{Tasks: 1}, {Tasks: 1}}}); err != nil {
		t.Fatal(err)
	}
	enc.stage.v[1] = 5
	badStage := enc.record()
	defer badStage.Release()
	enc = newEncoder(arrow.NewSchema(Schema.Fields(), &md))
	if err := enc.add(&traces.Job{ID: 9, Stages: []traces.Stage{{Tasks: 1}, {Tasks: 1}, {Tasks: 1}}}); err != nil {
		t.Fatal(err)
	}
	enc.numStages.v[0], enc.numStages.v[1], enc.numStages.v[2] = 4, 4, 4
	truncatedJob := enc.record()
	defer truncatedJob.Release()

	cases := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nope.arrow"), "no such file"},
		{"empty", write("empty.parquet", nil), "empty file"},
		{"text", write("text.arrow", []byte("job_id,submit\n1,2\n")), "not a Parquet or Arrow IPC file"},
		{"stream", write("stream.arrow", []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}), "IPC stream"},
		{"truncated arrow", cut(goodArrow, "trunc.arrow", func(n int) int { return n / 2 }), "checksum mismatch"},
		{"flipped byte", func() string {
			b, err := os.ReadFile(goodParquet)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/3] ^= 1
			return write("flip.parquet", b)
		}(), "checksum mismatch"},
		{"truncated parquet", cut(goodParquet, "trunc.parquet", func(n int) int { return n / 2 }), "trunc.parquet"},
		{"parquet tail only", cut(goodParquet, "tail.parquet", func(n int) int { return 4 }), "tail.parquet"},
		{"wrong version", func() string { p := filepath.Join(dir, "ver.arrow"); writeRaw(t, p, wrongVersion, nil); return p }(), `version "999"`},
		{"no metadata", func() string { p := filepath.Join(dir, "nometa.arrow"); writeRaw(t, p, noMeta, nil); return p }(), "not written by schedlab"},
		{"missing column", func() string { p := filepath.Join(dir, "col.arrow"); writeRaw(t, p, missingCol, nil); return p }(), `column "job_id"`},
		{"bad type", func() string { p := filepath.Join(dir, "type.arrow"); writeRaw(t, p, badType, nil); return p }(), `column "job_id": type utf8`},
		{"bad stage", func() string {
			p := filepath.Join(dir, "stage.arrow")
			writeRaw(t, p, badStage.Schema(), badStage)
			return p
		}(), "row 1: column stage: 5, want 1"},
		{"truncated job", func() string {
			p := filepath.Join(dir, "tjob.arrow")
			writeRaw(t, p, truncatedJob.Schema(), truncatedJob)
			return p
		}(), "job id 9 has 3 of 4 stage rows at end of file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(c.path)
			if err == nil {
				t.Fatal("Read succeeded")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "canonical: ") || !strings.Contains(msg, filepath.Base(c.path)) || !strings.Contains(msg, c.want) {
				t.Errorf("error %q: want prefix \"canonical: \", the file name and %q", msg, c.want)
			}
		})
	}
}

func TestDecodeClusterErrors(t *testing.T) {
	n := func(k int) *int { return &k }
	for _, jc := range []jsonCluster{
		{N: n(-1)},
		{N: n(2), Capacity: [][]int64{{1, 1, 1, 1, 1, 1, 1}}},
		{N: n(1), Capacity: [][]int64{{2, 1, 1, 1, 1, 1, 1}}},
		{N: n(1), Capacity: [][]int64{{1, 1}}},
		{N: n(1), Capacity: [][]int64{{1, 1, 1, 1, 1, 1, 1}}, Names: []string{"a", "b"}},
		{N: n(1), Capacity: [][]int64{{1, 1, 1, 1, 1, 1, 1}}, GPU: []int{3}},
	} {
		if _, err := decodeCluster(jc, traces.Limits{}); err == nil {
			t.Errorf("decodeCluster(%+v) succeeded", jc)
		}
	}
}

// TestJobsSpanningBatches writes record batches that cut jobs anywhere (as other Arrow writers
// may): the reader carries the unfinished job over to the next batch.
func TestJobsSpanningBatches(t *testing.T) {
	w := randomWorkload(rand.New(rand.NewPCG(9, 9)), 200)
	path := filepath.Join(t.TempDir(), "cut.arrow")
	writeWith(t, path, w, func(f *os.File, schema *arrow.Schema, rec arrow.Record) error {
		fw, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
		if err != nil {
			return err
		}
		for start, step := int64(0), int64(1); start < rec.NumRows(); start, step = start+step, step*2+1 {
			s := rec.NewSlice(start, min(start+step, rec.NumRows()))
			err := fw.Write(s)
			s.Release()
			if err != nil {
				return err
			}
		}
		return fw.Close()
	})
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, got, w)
}

func TestReservedMarker(t *testing.T) {
	w := edgeWorkload()
	w.Jobs[1].Features.User = "x" + checksumMarker + "y"
	for _, ext := range []string{".arrow", ".parquet"} {
		dir := t.TempDir()
		err := Write(filepath.Join(dir, "w"+ext), w)
		if err == nil || !strings.Contains(err.Error(), "reserved string") {
			t.Errorf("%s: error %v", ext, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: failed Close left %d files", ext, len(entries))
		}
	}
}

func TestScanChecksumAcrossChunks(t *testing.T) {
	// A marker straddling the 1 MiB read boundary is still found.
	for _, at := range []int{1<<20 - 5, 1<<20 - len(checksumMarker) - checksumDigits, 1 << 20, 3} {
		b := make([]byte, 2<<20)
		copy(b[at:], checksumMarker+"abcdef01")
		crc, found, err := scanChecksum(bytes.NewReader(b))
		if err != nil || len(found) != 1 || found[0].value != "abcdef01" || found[0].off != int64(at+len(checksumMarker)) {
			t.Errorf("marker at %d: %+v, %v", at, found, err)
		}
		crc2, found2 := scanChecksumBytes(b)
		if crc2 != crc || len(found2) != 1 || found2[0] != found[0] {
			t.Errorf("marker at %d: scanChecksumBytes %x %+v, scanChecksum %x %+v", at, crc2, found2, crc, found)
		}
	}
}

// refScanChecksum is the checksum's definition, computed naively: the CRC-32C of data with the
// eight bytes after each marker (found left to right, not overlapping) read as the placeholder.
func refScanChecksum(data []byte) (uint32, []occurrence) {
	var found []occurrence
	c := append([]byte(nil), data...)
	for p := 0; ; {
		k := bytes.Index(c[p:], []byte(checksumMarker))
		if k < 0 {
			break
		}
		v := p + k + len(checksumMarker)
		if v+checksumDigits > len(c) {
			break
		}
		found = append(found, occurrence{off: int64(v), value: string(c[v : v+checksumDigits])})
		copy(c[v:], placeholder)
		p = v + checksumDigits
	}
	return crc32.Checksum(c, castagnoli), found
}

func TestScanChecksumMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		n := rng.IntN(300 << 10)
		if iter%3 == 0 {
			n = rng.IntN(100)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = "s:chedlab.crc32cv1x"[rng.IntN(19)] // plenty of near misses
		}
		for range rng.IntN(6) {
			at := rng.IntN(n + 1)
			switch rng.IntN(3) {
			case 0: // near a 64 KiB block or 1 MiB chunk boundary
				at = (64<<10)*rng.IntN(5) - rng.IntN(30)
			case 1: // right after another marker, or cut off by the end
				at = n - rng.IntN(30)
			}
			at = max(0, min(at, n))
			copy(b[at:], checksumMarker+fmt.Sprintf("%08x", rng.Uint32()))
		}
		wantCRC, wantFound := refScanChecksum(b)
		crc, found := scanChecksumBytes(b)
		if crc != wantCRC || !slices.Equal(found, wantFound) {
			t.Fatalf("iteration %d (%d bytes): scanChecksumBytes %x %v, want %x %v", iter, n, crc, found, wantCRC, wantFound)
		}
		crc, found, err := scanChecksum(bytes.NewReader(b))
		if err != nil || crc != wantCRC || !slices.Equal(found, wantFound) {
			t.Fatalf("iteration %d (%d bytes): scanChecksum %x %v %v, want %x %v", iter, n, crc, found, err, wantCRC, wantFound)
		}
	}
}

// TestReadOlderVersions reads files of the previous layouts: version 1 has no placement columns
// (every job gets the zero Placement), versions 1 and 2 no task history columns (every stage a
// nil History). The workloads hash as they did under those layouts.
func TestReadOlderVersions(t *testing.T) {
	for _, version := range readableVersions[:len(readableVersions)-1] {
		t.Run("version="+version, func(t *testing.T) {
			w := randomWorkload(rand.New(rand.NewPCG(7, 8)), 50)
			for i := range w.Jobs {
				if !hasColumn(version, ColPlacementKind) {
					w.Jobs[i].Placement = traces.Placement{}
				}
				for s := range w.Jobs[i].Stages {
					w.Jobs[i].Stages[s].History = nil
				}
			}
			md, err := MetaOf(w).metadata()
			if err != nil {
				t.Fatal(err)
			}
			keys, vals := md.Keys(), slices.Clone(md.Values())
			vals[slices.Index(keys, KeyVersion)] = version
			md = arrow.NewMetadata(keys, vals)
			// The old schema: today's without the later columns, in the same order.
			var fields []arrow.Field
			var cols []int
			for i, f := range Schema.Fields() {
				if hasColumn(version, f.Name) {
					fields = append(fields, f)
					cols = append(cols, i)
				}
			}
			enc := newEncoder(arrow.NewSchema(Schema.Fields(), &md))
			for i := range w.Jobs {
				if err := enc.add(&w.Jobs[i]); err != nil {
					t.Fatal(err)
				}
			}
			full := enc.record()
			defer full.Release()
			arrays := make([]arrow.Array, len(cols))
			for k, c := range cols {
				arrays[k] = full.Column(c)
			}
			old := arrow.NewSchema(fields, &md)
			rec := array.NewRecord(old, arrays, full.NumRows())
			defer rec.Release()
			path := filepath.Join(t.TempDir(), "old.arrow")
			writeRaw(t, path, old, rec)
			got, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			checkSame(t, got, w)

			// A file of the current version must have every column.
			md3, err := MetaOf(w).metadata()
			if err != nil {
				t.Fatal(err)
			}
			path3 := filepath.Join(t.TempDir(), "current-without-columns.arrow")
			cur := arrow.NewSchema(fields, &md3)
			rec3 := array.NewRecord(cur, arrays, full.NumRows())
			defer rec3.Release()
			writeRaw(t, path3, cur, rec3)
			if _, err := Read(path3); err == nil || !strings.Contains(err.Error(), `column "task_attempts"`) && !strings.Contains(err.Error(), `column "placement_kind"`) {
				t.Errorf("version %s file without the later columns: got %v, want an error naming a missing column", SchemaVersion, err)
			}
		})
	}
}

// TestReadBadHistory checks that task history lists that disagree end in located errors.
func TestReadBadHistory(t *testing.T) {
	w := &traces.Workload{Dims: []string{"cpu"}, Cluster: traces.Uniform(1, traces.VecOf(1), 1), Jobs: []traces.Job{{
		ID: 1, Stages: []traces.Stage{{Name: "s", Tasks: 2, Demand: traces.VecOf(0.5), Duration: 5,
			History: []traces.TaskHistory{{Attempts: 1}, {Attempts: 2, Evictions: 1, Outcome: traces.TaskRunning}}}},
	}}}
	md, err := MetaOf(w).metadata()
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema(Schema.Fields(), &md)
	for _, tc := range []struct {
		name, col string
		edit      func(a, e, o []int32) ([]int32, []int32, []int32)
		want      string
	}{
		{"short evictions", ColTaskEvictions, func(a, e, o []int32) ([]int32, []int32, []int32) { return a, e[:1], o }, "must be all null or lists of one length"},
		{"null outcomes", ColTaskOutcomes, func(a, e, o []int32) ([]int32, []int32, []int32) { return a, e, nil }, "must be all null or lists of one length"},
		{"unknown outcome", ColTaskOutcomes, func(a, e, o []int32) ([]int32, []int32, []int32) { return a, e, []int32{0, 9} }, "unknown outcome 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc := newEncoder(schema)
			if err := enc.add(&w.Jobs[0]); err != nil {
				t.Fatal(err)
			}
			a, e, o := tc.edit(enc.attempts.i32, enc.evictions.i32, enc.outcomes.i32)
			for _, x := range []struct {
				c *listCol
				v []int32
			}{{&enc.attempts, a}, {&enc.evictions, e}, {&enc.outcomes, o}} {
				x.c.reset()
				x.c.start()
				if x.v == nil {
					x.c.appendNull()
					continue
				}
				x.c.i32 = append(x.c.i32, x.v...)
				x.c.offsets = append(x.c.offsets, int32(len(x.v)))
				x.c.valid.append(true)
			}
			rec := enc.record()
			defer rec.Release()
			path := filepath.Join(t.TempDir(), "bad.arrow")
			writeRaw(t, path, schema, rec)
			_, err := Read(path)
			if err == nil || !strings.Contains(err.Error(), "column "+tc.col) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "row 0") {
				t.Errorf("got %v, want a row 0 error on %s containing %q", err, tc.col, tc.want)
			}
		})
	}
}

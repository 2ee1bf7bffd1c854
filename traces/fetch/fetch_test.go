package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// gzipped returns a gzip file of about n bytes of incompressible-ish CSV.
func gzipped(t *testing.T, seed uint64, n int) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	var raw bytes.Buffer
	for raw.Len() < n {
		fmt.Fprintf(&raw, "%d,,%d,%d,%x\n", rng.Int64(), rng.Int64N(1e10), rng.IntN(9), rng.Uint64())
	}
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(raw.Bytes())
	w.Close()
	return b.Bytes()
}

// trace is a fake bucket: path -> content, with request logging and fault injection.
type trace struct {
	t       *testing.T
	files   map[string][]byte
	mu      sync.Mutex
	log     []string // "GET path range"
	cutOnce map[string]bool
	corrupt map[string]int // serve corrupt content this many times
	status  map[string][]int
}

func (tr *trace) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tr.mu.Lock()
	tr.log = append(tr.log, r.URL.Path+" "+r.Header.Get("Range"))
	data, ok := tr.files[r.URL.Path]
	cut := tr.cutOnce[r.URL.Path]
	delete(tr.cutOnce, r.URL.Path)
	corrupt := tr.corrupt[r.URL.Path] > 0
	if corrupt {
		tr.corrupt[r.URL.Path]--
	}
	var status int
	if s := tr.status[r.URL.Path]; len(s) > 0 {
		status, tr.status[r.URL.Path] = s[0], s[1:]
	}
	tr.mu.Unlock()
	switch {
	case status != 0:
		http.Error(w, http.StatusText(status), status)
	case !ok:
		http.NotFound(w, r)
	case cut:
		// Promise the whole file, send a third of it, then drop the connection.
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.WriteHeader(http.StatusOK)
		w.Write(data[:len(data)/3])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	case corrupt:
		bad := append([]byte(nil), data...)
		for i := len(bad) / 2; i < len(bad)/2+64 && i < len(bad); i++ {
			bad[i] ^= 0xff
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(bad))
	default:
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	}
}

func newTrace(t *testing.T, parts int) (*trace, *httptest.Server) {
	tr := &trace{t: t, files: map[string][]byte{}, cutOnce: map[string]bool{}, corrupt: map[string]int{}, status: map[string][]int{}}
	for p := range parts {
		tr.files[fmt.Sprintf("/clusterdata-2011-2/job_events/part-%05d-of-00500.csv.gz", p)] = gzipped(t, uint64(p), 200<<10)
	}
	tr.files["/clusterdata-2011-2/machine_events/part-00000-of-00001.csv.gz"] = gzipped(t, 99, 10<<10)
	srv := httptest.NewServer(tr)
	t.Cleanup(srv.Close)
	return tr, srv
}

func opts(progress *bytes.Buffer) Options {
	return Options{Client: &http.Client{Timeout: 10 * time.Second}, RetryDelay: time.Millisecond, Retries: 3, Progress: progress}
}

func checkFiles(t *testing.T, tr *trace, files []File) {
	t.Helper()
	for _, f := range files {
		got, err := os.ReadFile(f.Dest)
		if err != nil {
			t.Fatal(err)
		}
		path := f.URL[strings.Index(f.URL, "/clusterdata-2011-2/"):]
		if !bytes.Equal(got, tr.files[path]) {
			t.Errorf("%s: content differs", f.Dest)
		}
		if _, err := os.Stat(f.Dest + ".part"); err == nil {
			t.Errorf("%s.part left behind", f.Dest)
		}
	}
}

func TestGetAndSkip(t *testing.T) {
	tr, srv := newTrace(t, 3)
	dest := t.TempDir()
	files, err := Google2011Files(srv.URL+"/clusterdata-2011-2/", dest, []string{"job_events", "machine_events"}, []int{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("%d files", len(files))
	}
	var progress bytes.Buffer
	sum, err := Get(context.Background(), files, opts(&progress))
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, tr, files)
	if sum.Downloaded != 4 || sum.Skipped != 0 || !strings.Contains(progress.String(), "verified") {
		t.Errorf("summary %+v, progress:\n%s", sum, progress.String())
	}
	sum, err = Get(context.Background(), files, opts(&progress))
	if err != nil || sum.Downloaded != 0 || sum.Skipped != 4 {
		t.Errorf("second run: %+v, %v", sum, err)
	}
	if len(tr.log) != 4 {
		t.Errorf("second run made requests: %v", tr.log)
	}
}

func TestResumeAfterCut(t *testing.T) {
	tr, srv := newTrace(t, 1)
	path := "/clusterdata-2011-2/job_events/part-00000-of-00500.csv.gz"
	tr.cutOnce[path] = true
	files, _ := Google2011Files(srv.URL+"/clusterdata-2011-2", t.TempDir(), []string{"job_events"}, []int{0})
	var progress bytes.Buffer
	sum, err := Get(context.Background(), files, opts(&progress))
	if err != nil {
		t.Fatal(err)
	}
	checkFiles(t, tr, files)
	third := len(tr.files[path]) / 3
	want := []string{path + " ", fmt.Sprintf("%s bytes=%d-", path, third)}
	if !reflect.DeepEqual(tr.log, want) || sum.Resumed != 1 {
		t.Errorf("requests %q (want %q), summary %+v\n%s", tr.log, want, sum, progress.String())
	}
	if !strings.Contains(progress.String(), "resuming at") || !strings.Contains(progress.String(), "connection lost") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

func TestCompletePartFile(t *testing.T) {
	tr, srv := newTrace(t, 1)
	files, _ := Google2011Files(srv.URL+"/clusterdata-2011-2", t.TempDir(), []string{"job_events"}, []int{0})
	// A previous run received every byte but died before verifying: the server answers 416.
	if err := os.MkdirAll(filepath.Dir(files[0].Dest), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[0].Dest+".part", tr.files["/clusterdata-2011-2/job_events/part-00000-of-00500.csv.gz"], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Get(context.Background(), files, opts(new(bytes.Buffer))); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, tr, files)
}

func TestCorruptGzip(t *testing.T) {
	path := "/clusterdata-2011-2/job_events/part-00000-of-00500.csv.gz"
	t.Run("always", func(t *testing.T) {
		tr, srv := newTrace(t, 1)
		tr.corrupt[path] = 100
		files, _ := Google2011Files(srv.URL+"/clusterdata-2011-2", t.TempDir(), []string{"job_events"}, []int{0})
		_, err := Get(context.Background(), files, opts(new(bytes.Buffer)))
		if err == nil || !strings.Contains(err.Error(), "corrupt") || !strings.HasPrefix(err.Error(), "fetch: ") {
			t.Fatalf("error %v", err)
		}
		for _, p := range []string{files[0].Dest, files[0].Dest + ".part"} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s exists after a corrupt download", p)
			}
		}
		if len(tr.log) != 4 {
			t.Errorf("%d requests, want 1 + 3 retries", len(tr.log))
		}
	})
	t.Run("once", func(t *testing.T) {
		tr, srv := newTrace(t, 1)
		tr.corrupt[path] = 1
		files, _ := Google2011Files(srv.URL+"/clusterdata-2011-2", t.TempDir(), []string{"job_events"}, []int{0})
		if _, err := Get(context.Background(), files, opts(new(bytes.Buffer))); err != nil {
			t.Fatal(err)
		}
		checkFiles(t, tr, files)
	})
}

func TestHTTPErrors(t *testing.T) {
	path := "/clusterdata-2011-2/job_events/part-00000-of-00500.csv.gz"
	t.Run("404 is permanent", func(t *testing.T) {
		tr, srv := newTrace(t, 0)
		files, _ := Google2011Files(srv.URL+"/clusterdata-2011-2", t.TempDir(), []string{"job_events"}, []int{0})
		_, err := Get(context.Background(), files, opts(new(bytes.Buffer)))
		if err == nil || !strings.Contains(err.Error(), "404") || len(tr.log) != 1 {
			t.Errorf("error %v after %d requests", err, len(tr.log))
		}
	})
	t.Run("503 then ok", func(t *testing.T) {
		tr, srv := newTrace(t, 1)
		tr.status[path] = []int{503, 503}
		files, _ := Google2011Files(srv.URL+"/clusterdata-2011-2", t.TempDir(), []string{"job_events"}, []int{0})
		if _, err := Get(context.Background(), files, opts(new(bytes.Buffer))); err != nil {
			t.Fatal(err)
		}
		checkFiles(t, tr, files)
	})
}

func TestOffline(t *testing.T) {
	// Nothing listens on port 1 of the loopback interface: the dial is refused at once.
	files, _ := Google2011Files("http://127.0.0.1:1/clusterdata-2011-2", t.TempDir(), []string{"job_events"}, []int{0})
	o := opts(new(bytes.Buffer))
	o.Retries = 1
	_, err := Get(context.Background(), files, o)
	if err == nil || !strings.Contains(err.Error(), "offline?") || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("error %v", err)
	}
}

func TestGoogle2011Files(t *testing.T) {
	files, err := Google2011Files("", "/d", []string{"job_events", "machine_events"}, []int{0, 499, 500})
	if err != nil {
		t.Fatal(err)
	}
	want := []File{
		{Google2011BaseURL + "/job_events/part-00000-of-00500.csv.gz", filepath.Join("/d", "job_events", "part-00000-of-00500.csv.gz")},
		{Google2011BaseURL + "/job_events/part-00499-of-00500.csv.gz", filepath.Join("/d", "job_events", "part-00499-of-00500.csv.gz")},
		{Google2011BaseURL + "/machine_events/part-00000-of-00001.csv.gz", filepath.Join("/d", "machine_events", "part-00000-of-00001.csv.gz")},
	}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("got %v", files)
	}
	all, _ := Google2011Files("", "/d", []string{"task_events"}, nil)
	if len(all) != 500 {
		t.Errorf("%d task_events files", len(all))
	}
	if _, err := Google2011Files("", "/d", []string{"jobs"}, nil); err == nil || !strings.Contains(err.Error(), "job_events") {
		t.Errorf("unknown table: %v", err)
	}
}

func TestParseParts(t *testing.T) {
	for in, want := range map[string][]int{"0-3": {0, 1, 2, 3}, "5": {5}, "9,1-2, 2": {1, 2, 9}, "0-499": nil} {
		got, err := ParseParts(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if want != nil && !reflect.DeepEqual(got, want) || want == nil && len(got) != 500 {
			t.Errorf("ParseParts(%q) = %v", in, got)
		}
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "1-", "1-x", "0-100000"} {
		if _, err := ParseParts(bad); err == nil {
			t.Errorf("ParseParts(%q) succeeded", bad)
		}
	}
}

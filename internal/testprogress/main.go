// Command testprogress shows the progress of `go test -json` as it runs: one line per package as
// it finishes (in the order they finish, not the order go test prints them, so a slow first
// package does not hide the others), the whole output of a package that fails, and every minute
// a line naming the packages still running. `make test` pipes the tests through it:
//
//	go test -json ./... | go run ./internal/testprogress
//
// It exits 1 when a package or its build failed, or when no package reported at all.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// event is the part of a test2json event testprogress reads.
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output and build-fail events
	Test       string
	Output     string
	Elapsed    float64
}

// progress is the state shared by the reader and the ticker.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	begin    time.Time
	running  map[string]time.Time
	output   map[string][]string // a running package's output, printed if it fails
	done     int
	failed   []string
	anything bool
}

func main() {
	p := &progress{w: os.Stdout, begin: time.Now(), running: map[string]time.Time{}, output: map[string][]string{}}
	p.started()
	stop := make(chan struct{})
	go p.tick(time.Minute, stop)
	err := p.read(os.Stdin)
	close(stop)
	if code := p.finish(err); code != 0 {
		os.Exit(code)
	}
}

// tick prints the packages still running every interval until stop is closed.
func (p *progress) tick(interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			p.status(now)
		}
	}
}

// started prints the first line at once: go test first compiles the test binaries, which under
// -race takes minutes before any package reports.
func (p *progress) started() {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.w, "testprogress: waiting for go test to compile and run the packages; a line per package as it finishes, a status line every minute")
}

// status prints how many packages finished and which run, and for how long; while none runs,
// that go test is compiling.
func (p *progress) status(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	took := now.Sub(p.begin).Round(time.Second)
	if len(p.running) == 0 {
		if p.done == 0 {
			fmt.Fprintf(p.w, "… %s: compiling the test binaries; no package has started yet\n", took)
		} else {
			fmt.Fprintf(p.w, "… %s: %d packages done, compiling the next test binaries\n", took, p.done)
		}
		return
	}
	var names []string
	for pkg := range p.running {
		names = append(names, pkg)
	}
	slices.SortFunc(names, func(a, b string) int { return p.running[a].Compare(p.running[b]) })
	var parts []string
	for _, pkg := range names {
		parts = append(parts, fmt.Sprintf("%s (%s)", short(pkg), now.Sub(p.running[pkg]).Round(time.Second)))
	}
	fmt.Fprintf(p.w, "… %s: %d packages done, running %s\n", took, p.done, strings.Join(parts, ", "))
}

// read consumes the event stream; lines that are not events (go test's own messages) are
// passed through.
func (p *progress) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			p.mu.Lock()
			fmt.Fprintf(p.w, "%s\n", line)
			p.mu.Unlock()
			continue
		}
		p.handle(e)
	}
	return sc.Err()
}

func (p *progress) handle(e event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.anything = true
	switch e.Action {
	case "build-output":
		fmt.Fprint(p.w, e.Output)
	case "build-fail":
		p.failed = append(p.failed, e.ImportPath+" (build)")
	case "start":
		p.running[e.Package] = time.Now()
	case "output":
		p.output[e.Package] = append(p.output[e.Package], e.Output)
	case "pass", "fail", "skip":
		if e.Test != "" {
			return
		}
		out := p.output[e.Package]
		delete(p.output, e.Package)
		delete(p.running, e.Package)
		p.done++
		switch e.Action {
		case "pass":
			fmt.Fprintf(p.w, "ok   %s %.1fs\n", e.Package, e.Elapsed)
		case "skip":
			fmt.Fprintf(p.w, "?    %s [no test files]\n", e.Package)
		case "fail":
			p.failed = append(p.failed, e.Package)
			fmt.Fprint(p.w, strings.Join(out, ""))
			fmt.Fprintf(p.w, "FAIL %s %.1fs\n", e.Package, e.Elapsed)
		}
	}
}

// finish prints the summary and returns the exit status.
func (p *progress) finish(err error) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		fmt.Fprintf(p.w, "testprogress: %v\n", err)
		return 1
	}
	if !p.anything {
		fmt.Fprintln(p.w, "testprogress: no test events (did go test run?)")
		return 1
	}
	for pkg, out := range p.output { // started, never finished: the stream was cut short
		fmt.Fprint(p.w, strings.Join(out, ""))
		p.failed = append(p.failed, pkg+" (did not finish)")
	}
	took := time.Since(p.begin).Round(time.Second)
	if len(p.failed) > 0 {
		slices.Sort(p.failed)
		fmt.Fprintf(p.w, "FAIL: %d packages in %s; failed: %s\n", p.done, took, strings.Join(p.failed, ", "))
		return 1
	}
	fmt.Fprintf(p.w, "PASS: %d packages in %s\n", p.done, took)
	return 0
}

// short drops the module path from a package path.
func short(pkg string) string { return strings.TrimPrefix(pkg, "github.com/schedlab/schedlab/") }

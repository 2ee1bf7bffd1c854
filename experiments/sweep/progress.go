package sweep

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// IsTerminal reports whether w is a terminal (a character device), for choosing between a
// redrawn progress bar and plain periodic lines.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progress reports a sweep's progress: a bar redrawn in place on a terminal, else a plain line
// every interval (and one at the end), which suits CI logs.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	every    time.Duration
	total    int
	cached   int
	nDone    int // cells finished (cached ones included)
	failed   int
	start    time.Time
	lastDraw time.Time
	printed  int // cells done at the last plain line
	now      func() time.Time
	// stop ends the ticker that redraws while no cell finishes, so that a sweep of long cells
	// is not silent (a plain line every interval at most, the bar's elapsed time every second).
	stop chan struct{}
	tick sync.WaitGroup
}

// newProgress starts the progress output; why, when not empty, says why cached cells of the same
// configurations are recomputed, on a line of its own.
func newProgress(o Options, total, cached int, why string) *progress {
	p := &progress{w: o.Progress, tty: o.Terminal, every: o.ProgressEvery, total: total, cached: cached, nDone: cached, printed: cached, now: time.Now}
	if p.every <= 0 {
		p.every = 10 * time.Second
	}
	p.start = p.now()
	p.lastDraw = p.start
	if p.w != nil && !p.tty {
		fmt.Fprintf(p.w, "sweep: %s, %d cached, %d to run\n", cellCount(total), cached, total-cached)
	}
	if p.w != nil && why != "" {
		fmt.Fprintf(p.w, "sweep: %s\n", why)
	}
	p.draw(true)
	if p.w != nil {
		every := p.every
		if p.tty {
			every = time.Second
		}
		p.stop = make(chan struct{})
		p.tick.Add(1)
		go func() {
			defer p.tick.Done()
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
					p.draw(false)
				}
			}
		}()
	}
	return p
}

// done records a finished cell.
func (p *progress) done(ok bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nDone++
	if !ok {
		p.failed++
	}
	p.drawLocked(false)
}

func (p *progress) draw(force bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drawLocked(force)
}

// eta estimates the time left from the rate of cells run so far (cached ones cost nothing).
func (p *progress) eta(now time.Time) string {
	ran := p.nDone - p.cached
	left := p.total - p.nDone
	if ran <= 0 || left <= 0 {
		if left <= 0 {
			return "0s"
		}
		return "?"
	}
	per := now.Sub(p.start) / time.Duration(ran)
	return fmtDur(per * time.Duration(left))
}

func fmtDur(d time.Duration) string {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

func (p *progress) drawLocked(force bool) {
	if p.w == nil {
		return
	}
	now := p.now()
	if p.tty {
		if !force && now.Sub(p.lastDraw) < 100*time.Millisecond && p.nDone < p.total {
			return
		}
		p.lastDraw = now
		const width = 30
		fill := 0
		if p.total > 0 {
			fill = width * p.nDone / p.total
		}
		bar := strings.Repeat("█", fill) + strings.Repeat("░", width-fill)
		fmt.Fprintf(p.w, "\r\x1b[K%s %d/%s (%d cached%s) %3d%%  elapsed %s  ETA %s",
			bar, p.nDone, cellCount(p.total), p.cached, p.failedText(), p.percent(), fmtDur(now.Sub(p.start)), p.eta(now))
		return
	}
	if !force && now.Sub(p.lastDraw) < p.every {
		return
	}
	if force && p.nDone == p.cached {
		return // the opening line said it
	}
	p.lastDraw = now
	p.printed = p.nDone
	fmt.Fprintf(p.w, "sweep: %d/%s (%d cached%s), %d%%, elapsed %s, ETA %s\n",
		p.nDone, cellCount(p.total), p.cached, p.failedText(), p.percent(), fmtDur(now.Sub(p.start)), p.eta(now))
}

func (p *progress) failedText() string {
	if p.failed == 0 {
		return ""
	}
	return fmt.Sprintf(", %d failed", p.failed)
}

func (p *progress) percent() int {
	if p.total == 0 {
		return 100
	}
	return 100 * p.nDone / p.total
}

// finish draws the final state and ends the bar's line.
func (p *progress) finish() {
	if p == nil || p.w == nil {
		return
	}
	close(p.stop)
	p.tick.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		p.drawLocked(true)
		fmt.Fprintln(p.w)
		return
	}
	if p.printed != p.nDone {
		p.lastDraw = time.Time{}
		p.drawLocked(true)
	}
}

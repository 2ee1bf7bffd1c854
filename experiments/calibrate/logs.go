package calibrate

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// MaxLogBytes bounds one decompressed log file; ccra's largest usage log is about 1 MB.
const MaxLogBytes = 64 << 20

// AppTimes is one line of the ResourceManager's yarn_completion_time.csv (ccra's
// RMAppAttemptImpl): the application attempt's creation (Start, second resolution), the moment
// the application master registered (Running), and the durations Finish−Running and Finish−Start
// in milliseconds.
type AppTimes struct {
	Name           string
	Start, Running time.Time
	FromRunningMS  int64
	FromStartMS    int64
	Finish         time.Time
}

// DAGTimes is one line of the Tez application master's completion_time.csv (ccra's
// DAGAppMaster, Feb. 2017 format): the DAG's start and running times (second resolution), its
// duration Finish−Start and Finish−Running in milliseconds, and its finish.
type DAGTimes struct {
	Name           string
	Start, Running time.Time
	DurationMS     int64
	FromRunningMS  int64
	Finish         time.Time
}

// Usage is one sample of ccra's get_yarn_queue_info.py (yarnUsedResources.csv): a queue's
// allocated vcores and memory (MB) at a wall-clock second of the run's day.
type Usage struct {
	Second int64 // seconds since midnight of the run's first day; later days add 86400
	Queue  string
	Vcores int64
	MemMB  int64
}

// javaDate is java.util.Date.toString's layout as the ccra logs print it.
const javaDate = "Mon Jan 02 15:04:05 MST 2006"

// readLines returns the lines of path (a .gz file is decompressed), without line endings. A
// final line without a newline is dropped: ccra's loggers were killed mid-write, and a cut last
// line is that, not data.
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		defer z.Close()
		r = z
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxLogBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(data) > MaxLogBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes; a ccra run log is about 1 MB", path, MaxLogBytes)
	}
	if i := bytes.LastIndexByte(data, '\n'); i < len(data)-1 {
		data = data[:i+1] // cut final line (i = -1: nothing complete)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		out = append(out, strings.TrimRight(sc.Text(), "\r"))
	}
	return out, sc.Err()
}

func fields(line string, n int, path string, ln int) ([]string, error) {
	f := strings.Split(line, ",")
	if len(f) != n {
		return nil, fmt.Errorf("%s:%d: want %d comma-separated fields, got %d", path, ln, n, len(f))
	}
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	return f, nil
}

func parseDate(s, path string, ln int, field string) (time.Time, error) {
	t, err := time.Parse(javaDate, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s:%d: %s: want a date like %q, got %q", path, ln, field, javaDate, s)
	}
	return t, nil
}

func parseMS(s, path string, ln int, field string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > 1e12 {
		return 0, fmt.Errorf("%s:%d: %s: want milliseconds ≥ 0, got %q", path, ln, field, s)
	}
	return n, nil
}

// timesRow is one line of ccra's six-field completion-time files: a name, the start and
// running dates, two millisecond durations (named by the file) and the finish date.
type timesRow struct {
	line           int
	name           string
	start, running time.Time
	ms             [2]int64
	finish         time.Time
}

// readTimes reads a six-field completion-time file; msNames name its two duration fields.
func readTimes(path string, msNames [2]string) ([]timesRow, error) {
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	var out []timesRow
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		f, err := fields(l, 6, path, i+1)
		if err != nil {
			return nil, err
		}
		r := timesRow{line: i + 1, name: f[0]}
		if r.start, err = parseDate(f[1], path, i+1, "start"); err != nil {
			return nil, err
		}
		if r.running, err = parseDate(f[2], path, i+1, "running"); err != nil {
			return nil, err
		}
		for k := range r.ms {
			if r.ms[k], err = parseMS(f[3+k], path, i+1, msNames[k]); err != nil {
				return nil, err
			}
		}
		if r.finish, err = parseDate(f[5], path, i+1, "finish"); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// ReadAppTimes reads a yarn_completion_time.csv file.
func ReadAppTimes(path string) ([]AppTimes, error) {
	rows, err := readTimes(path, [2]string{"finish-running", "finish-start"})
	if err != nil {
		return nil, err
	}
	out := make([]AppTimes, 0, len(rows))
	for _, r := range rows {
		if r.ms[0] > r.ms[1] {
			return nil, fmt.Errorf("%s:%d: finish-running %d ms exceeds finish-start %d ms", path, r.line, r.ms[0], r.ms[1])
		}
		out = append(out, AppTimes{Name: r.name, Start: r.start, Running: r.running, FromRunningMS: r.ms[0], FromStartMS: r.ms[1], Finish: r.finish})
	}
	return out, nil
}

// ReadDAGTimes reads a completion_time.csv file (the Feb. 2017 six-field format).
func ReadDAGTimes(path string) ([]DAGTimes, error) {
	rows, err := readTimes(path, [2]string{"finish-start", "finish-running"})
	if err != nil {
		return nil, err
	}
	out := make([]DAGTimes, 0, len(rows))
	for _, r := range rows {
		out = append(out, DAGTimes{Name: r.name, Start: r.start, Running: r.running, DurationMS: r.ms[0], FromRunningMS: r.ms[1], Finish: r.finish})
	}
	return out, nil
}

// ReadUsage reads a yarnUsedResources.csv file: time (HH:MM:SS), queue, vcores, memory MB. A
// clock going back by more than 12 hours is the next day.
func ReadUsage(path string) ([]Usage, error) {
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	var out []Usage
	var day, last int64 = 0, -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		f, err := fields(l, 4, path, i+1)
		if err != nil {
			return nil, err
		}
		c, err := time.Parse("15:04:05", f[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: time: want HH:MM:SS, got %q", path, i+1, f[0])
		}
		s := int64(c.Hour()*3600+c.Minute()*60+c.Second()) + day
		if last >= 0 && s < last-12*3600 {
			day += 86400
			s += 86400
		}
		if last >= 0 && s < last {
			return nil, fmt.Errorf("%s:%d: time %s goes back from the previous sample", path, i+1, f[0])
		}
		last = s
		v, err1 := strconv.ParseInt(f[2], 10, 64)
		m, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil || v < 0 || m < 0 || v > 1e9 || m > 1e12 {
			return nil, fmt.Errorf("%s:%d: want vcores and memory as integers ≥ 0, got %q, %q", path, i+1, f[2], f[3])
		}
		if f[1] == "" {
			return nil, fmt.Errorf("%s:%d: empty queue name", path, i+1)
		}
		out = append(out, Usage{Second: s, Queue: f[1], Vcores: v, MemMB: m})
	}
	return out, nil
}

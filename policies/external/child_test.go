package external_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// childEnv names the scheduler the test binary plays when it is started as a child.
const childEnv = "SCHEDLAB_EXT_CHILD"

// childArgv is the command that runs the test binary as the scheduler named mode.
func childArgv(mode string) string {
	return fmt.Sprintf("env %s=%s %s", childEnv, mode, os.Args[0])
}

// goMsg is every engine message, decoded loosely: a minimal client needs few fields.
type goMsg struct {
	Type     string `json:"type"`
	Protocol int    `json:"protocol"`
	Call     int64  `json:"call"`
	Arrivals []struct {
		Job    int32 `json:"job"`
		Stages []struct {
			Demand []int64 `json:"demand"`
		} `json:"stages"`
	} `json:"arrivals"`
	Jobs []struct {
		Job    int32     `json:"job"`
		Done   bool      `json:"done"`
		Stages [][]int64 `json:"stages"`
	} `json:"jobs"`
	Free [][]json.RawMessage `json:"free"`
}

// child plays a scheduler: "null" (empty plans), "fifo" (a pooled FIFO, for the differential
// test: the protocol is language-neutral) or one of the faults. It returns the exit status.
func child(mode string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<30)
	out := bufio.NewWriter(os.Stdout)
	say := func(s string) { out.WriteString(s + "\n"); out.Flush() }
	if mode == "echo" { // the transport alone: every line straight back
		for in.Scan() {
			out.Write(in.Bytes())
			out.WriteByte('\n')
			out.Flush()
		}
		return 0
	}
	if mode == "early" {
		fmt.Fprintln(os.Stderr, "early: leaving before the hello")
		return 0
	}
	if mode == "grandchild" {
		// Leave a process in the group that would outlive us, and tell the test its pid.
		gc := exec.Command("sleep", "1000")
		gc.Start()
		os.WriteFile(os.Getenv("SCHEDLAB_EXT_PIDFILE"), []byte(strconv.Itoa(gc.Process.Pid)), 0o644)
	}
	var f fifo
	var record *os.File
	if path := os.Getenv("SCHEDLAB_EXT_RECORD"); path != "" {
		var err error
		if record, err = os.Create(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		defer record.Close()
	}
	for in.Scan() {
		if record != nil {
			record.Write(append(in.Bytes(), '\n'))
		}
		if mode == "null" { // a null scheduler needs only the call number: no decoding
			if rest, ok := bytes.CutPrefix(in.Bytes(), []byte(`{"type":"schedule","call":`)); ok {
				n := 0
				for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
					n++
				}
				out.WriteString(`{"type":"plan","call":`)
				out.Write(rest[:n])
				out.WriteString(`,"starts":[],"preempts":[]}` + "\n")
				out.Flush()
				continue
			}
		}
		var m goMsg
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "bad message:", err)
			return 2
		}
		switch m.Type {
		case "hello":
			v := 1
			if mode == "version" {
				v = 2
				fmt.Fprintln(os.Stderr, "version: I only speak protocol 2")
			}
			say(fmt.Sprintf(`{"type":"hello","protocol":%d,"name":"go-%s","capabilities":["machines"]}`, v, mode))
		case "end":
			return 0
		case "schedule":
			switch mode {
			case "crash":
				fmt.Fprintln(os.Stderr, "crash: something went wrong")
				fmt.Fprintln(os.Stderr, "panic: index out of range [3] with length 3")
				return 3
			case "hang", "grandchild":
				fmt.Fprintln(os.Stderr, "hang: thinking very hard")
				time.Sleep(time.Hour)
			case "garbage":
				fmt.Fprintln(os.Stderr, "garbage: printing a debug line to stdout by mistake")
				say("x = 42")
				continue
			case "invalid":
				fmt.Fprintln(os.Stderr, "invalid: starting a million tasks")
				say(fmt.Sprintf(`{"type":"plan","call":%d,"starts":[[0,0,0,1000000]],"preempts":[]}`, m.Call))
				continue
			case "flood":
				junk := strings.Repeat("flooding stderr with junk ", 40) + "\n"
				for range 20000 { // 20 MB
					os.Stderr.WriteString(junk)
				}
				fmt.Fprintln(os.Stderr, "flood: the last words")
				return 4
			case "fifo":
				say(f.plan(&m))
				continue
			}
			say(fmt.Sprintf(`{"type":"plan","call":%d,"starts":[],"preempts":[]}`, m.Call))
		}
	}
	return 0
}

// fifo is a minimal pooled FIFO in Go: in job order, start every pending runnable task that
// fits, and stop at the first job that keeps pending tasks (head-of-line blocking), as the
// built-in fifo does without backfill on one machine.
type fifo struct {
	demand [][][]int64 // job → stage → demand
	state  map[int32][][]int64
	active []int32
	free   []int64 // as the engine last reported it
}

func (f *fifo) plan(m *goMsg) string {
	if f.state == nil {
		f.state = map[int32][][]int64{}
	}
	for _, a := range m.Arrivals {
		var ds [][]int64
		for _, s := range a.Stages {
			ds = append(ds, s.Demand)
		}
		f.demand = append(f.demand, ds)
		f.active = append(f.active, a.Job)
	}
	for _, j := range m.Jobs {
		f.state[j.Job] = j.Stages
		if j.Done {
			delete(f.state, j.Job)
		}
	}
	for _, fr := range m.Free {
		json.Unmarshal(fr[1], &f.free)
	}
	free := append([]int64(nil), f.free...) // less this plan's starts
	var starts []string
	kept := f.active[:0]
	blocked := false
	for _, j := range f.active {
		st, ok := f.state[j]
		if !ok {
			continue
		}
		kept = append(kept, j)
		if blocked {
			continue
		}
		left := int64(0)
		for s, x := range st {
			if x[3] == 0 || x[0] == 0 {
				continue
			}
			d := f.demand[j][s]
			k := x[0]
			for i := range d {
				if d[i] > 0 {
					k = min(k, free[i]/d[i])
				}
			}
			if k > 0 {
				starts = append(starts, fmt.Sprintf("[%d,%d,0,%d]", j, s, k))
				for i := range d {
					free[i] -= k * d[i]
				}
			}
			left += x[0] - k
		}
		blocked = left > 0
	}
	f.active = kept
	return fmt.Sprintf(`{"type":"plan","call":%d,"starts":[%s],"preempts":[]}`, m.Call, strings.Join(starts, ","))
}

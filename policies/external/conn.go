package external

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/schedlab/schedlab/internal/datapath"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/schedlab/schedlab/policies/external/internal/wall"
)

// MaxLine is the longest message line accepted from a scheduler.
const MaxLine = 64 << 20

// conn is the byte stream to one scheduler: a child's stdin/stdout, or a Unix socket.
type conn struct {
	w       *bufio.Writer
	r       *bufio.Reader
	closeW  func() error
	setRead func(time.Time) error
	cmd     *exec.Cmd // nil in socket mode
	sock    net.Conn
	exited  chan struct{} // closed when the child has been waited for
	waitErr error
	stderr  *tail
	what    string // "scheduler `python3 fifo.py`" or "scheduler at socket /tmp/s"
}

// startChild runs argv in its own process group with pipes for stdin, stdout and stderr.
func startChild(argv []string) (*conn, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = childAttr()
	cmd.Env = childEnv(os.Environ())
	c := &conn{cmd: cmd, exited: make(chan struct{}), stderr: newTail(errR), what: fmt.Sprintf("scheduler %q", strings.Join(argv, " "))}
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("%s: cannot start: %v", c.what, err)
	}
	go c.stderr.run()
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	c.w = bufio.NewWriterSize(inW, 64<<10)
	c.r = bufio.NewReaderSize(outR, 64<<10)
	c.closeW = inW.Close
	c.setRead = outR.SetReadDeadline
	return c, nil
}

// dialSocket connects to a scheduler listening on a Unix socket, retrying until wait has passed
// (a scheduler may still be starting).
func dialSocket(path string, wait time.Duration) (*conn, error) {
	what := fmt.Sprintf("scheduler at socket %s", path)
	deadline := wall.After(wait)
	delay := 5 * time.Millisecond
	for {
		s, err := net.DialTimeout("unix", path, wall.Until(deadline))
		if err == nil {
			c := &conn{sock: s, what: what}
			c.w = bufio.NewWriterSize(s, 64<<10)
			c.r = bufio.NewReaderSize(s, 64<<10)
			c.closeW = func() error { return s.(*net.UnixConn).CloseWrite() }
			c.setRead = s.SetReadDeadline
			return c, nil
		}
		if wall.After(delay).After(deadline) {
			return nil, fmt.Errorf("%s: nothing accepted a connection within %s (policy.params.%s): %v", what, wait, ParamConnectTimeout, unwrapOp(err))
		}
		time.Sleep(delay)
		delay = min(2*delay, 200*time.Millisecond)
	}
}

func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// send writes one message line and flushes it.
func (c *conn) send(line []byte) error {
	if _, err := c.w.Write(line); err != nil {
		return err
	}
	return c.w.Flush()
}

// receive reads one line, waiting at most timeout. The returned slice is valid until the next
// receive.
func (c *conn) receive(timeout time.Duration) ([]byte, error) {
	if err := c.setRead(wall.After(timeout)); err != nil {
		return nil, err
	}
	line, err := c.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		// A long line: gather it, up to MaxLine.
		buf := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			if len(buf) > MaxLine {
				return nil, fmt.Errorf("message line longer than %d bytes", MaxLine)
			}
			line, err = c.r.ReadSlice('\n')
			buf = append(buf, line...)
		}
		line = buf
	}
	if err != nil {
		if len(line) > 0 && err == io.EOF {
			return nil, fmt.Errorf("output ended inside a message line")
		}
		return nil, err
	}
	return line, nil
}

// close ends the conversation: it closes the scheduler's input, gives a child grace to exit,
// then kills its whole process group and waits for it. It is idempotent.
func (c *conn) close(grace time.Duration) {
	if c.closeW != nil {
		c.closeW()
		c.closeW = nil
	}
	if c.sock != nil {
		c.sock.Close()
		return
	}
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	select {
	case <-c.exited:
	case <-time.After(grace):
	}
	// The child may have left descendants in its group even if it exited itself.
	killGroup(c.cmd.Process)
	<-c.exited
	c.stderr.wait()
}

// kill stops the scheduler at once (its whole process group) and waits for it.
func (c *conn) kill() { c.close(0) }

// exitStatus describes how the child ended, if it has within wait.
func (c *conn) exitStatus(wait time.Duration) (string, bool) {
	if c.cmd == nil {
		return "", false
	}
	select {
	case <-c.exited:
	case <-time.After(wait):
		return "", false
	}
	if c.waitErr == nil {
		return "exited with status 0", true
	}
	var ee *exec.ExitError
	if errors.As(c.waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "killed by signal " + ws.Signal().String(), true
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode()), true
	}
	return c.waitErr.Error(), true
}

// lastStderr is the last non-empty line the child wrote to stderr, quoted for an error
// message, or "".
func (c *conn) lastStderr() string {
	if c.stderr == nil {
		return ""
	}
	if l := c.stderr.last(); l != "" {
		return fmt.Sprintf("; its last stderr line: %q", l)
	}
	return "; it wrote nothing to stderr"
}

// tail reads a stream to its end keeping only its last non-empty line (at most maxTail bytes),
// so a scheduler that floods its stderr costs constant memory.
type tail struct {
	r    io.ReadCloser
	mu   sync.Mutex
	line []byte
	done chan struct{}
}

const maxTail = 512

func newTail(r io.ReadCloser) *tail { return &tail{r: r, done: make(chan struct{})} }

func (t *tail) run() {
	defer close(t.done)
	defer t.r.Close()
	br := bufio.NewReaderSize(t.r, 16<<10)
	var cur []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(cur) < maxTail {
			cur = append(cur, chunk[:min(len(chunk), maxTail-len(cur))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if s := bytes.TrimSpace(cur); len(s) > 0 {
			t.mu.Lock()
			t.line = append(t.line[:0], s...)
			t.mu.Unlock()
		}
		cur = cur[:0]
		if err != nil {
			return
		}
	}
}

func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.line)
}

// wait waits until the stream has been read to its end (bounded: a grandchild that escaped the
// process group could hold it open).
func (t *tail) wait() {
	select {
	case <-t.done:
	case <-time.After(time.Second):
	}
}

// ClientDir is the repository folder of the Python client package schedlab_client.
const ClientDir = "policies/external/python"

// childEnv returns the scheduler's environment: this process's, with the repository's Python
// client folder appended to PYTHONPATH when it is found (from any directory: the working
// directory's repository or the one schedlab was built from), so that a scheduler script
// copied anywhere can `import schedlab_client` without installing it. A PYTHONPATH the user
// set keeps its entries first.
func childEnv(env []string) []string {
	dir, ok, err := datapath.RepoFile(ClientDir)
	if !ok || err != nil {
		return env
	}
	for i, kv := range env {
		if v, found := strings.CutPrefix(kv, "PYTHONPATH="); found {
			if v == "" {
				env[i] = "PYTHONPATH=" + dir
			} else {
				env[i] = kv + string(os.PathListSeparator) + dir
			}
			return env
		}
	}
	return append(env, "PYTHONPATH="+dir)
}

//go:build linux

package external

import (
	"os"
	"syscall"
)

// childAttr puts a scheduler in its own process group, so that killGroup reaches everything it
// started, and has the kernel kill it if schedlab dies without ending it.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the process group a scheduler leads.
func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }

//go:build unix && !linux

package external

import (
	"os"
	"syscall"
)

// childAttr puts a scheduler in its own process group, so that killGroup reaches everything it
// started.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the process group a scheduler leads.
func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }

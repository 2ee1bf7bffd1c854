//go:build !unix

package external

import (
	"os"
	"syscall"
)

// childAttr: without process groups a scheduler is one process.
func childAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the scheduler's process (its descendants are its own business here).
func killGroup(p *os.Process) { p.Kill() }

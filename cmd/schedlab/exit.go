package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/schedlab/schedlab/experiments"
)

// schedlab's exit statuses (README.md, "Exit status").
const (
	exitOK      = 0
	exitFailure = 1 // runtime and data errors
	exitUsage   = 2 // usage and configuration errors
)

// usageError marks command-line mistakes: an unknown command or flag, a bad flag value, a
// missing argument.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitStatus maps an error to the exit status: exitUsage for usage errors and configuration
// errors (experiments.ErrConfig: unknown keys, bad or empty values, configured sizes over the
// limits), exitFailure for everything else — unreadable or invalid data, workloads over the
// limits, failed replays.
func exitStatus(err error) int {
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue), errors.Is(err, experiments.ErrConfig):
		return exitUsage
	}
	return exitFailure
}

// exit prints err, if any, as one line on stderr and returns the exit status for it.
func exit(stderr io.Writer, err error) int {
	if err != nil {
		fmt.Fprintf(stderr, "schedlab: %s\n", oneLine(err.Error()))
	}
	return exitStatus(err)
}

// oneLine joins the lines of a message (errors.Join of several problems) with "; ".
func oneLine(msg string) string {
	lines := strings.FieldsFunc(msg, func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}

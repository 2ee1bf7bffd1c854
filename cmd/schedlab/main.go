// Command schedlab replays cluster-scheduler traces under scheduling policies, sweeps experiment
// configurations and reproduces the figures of the CORA, JamaisVu and BPF papers.
//
// main is thin: run builds the command tree and executes it, so the whole CLI is testable with
// golden stdout/stderr.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/experiments"
)

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

// usageError marks command-line mistakes (exit status 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// run executes schedlab with args and returns the process exit status: 0 on success, 2 for
// usage and configuration errors, 1 for everything else.
func run(stdout, stderr io.Writer, args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "schedlab: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) || errors.Is(err, experiments.ErrConfig) {
		return 2
	}
	return 1
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "schedlab",
		Short:         "Trace-replay benchmarking harness for cluster schedulers",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%v (see %s --help)", err, c.CommandPath())}
	})
	root.AddCommand(newRunCmd(), newPoliciesCmd(), newConfigCmd(), newPredictCmd(), newVersionCmd(), newSolverCmd(), newTraceCmd(), newSweepCmd(), newReproduceCmd(), newCompareCmd())
	for _, c := range root.Commands() {
		c.Args = wrapArgs(c.Args)
	}
	return root
}

// wrapArgs turns cobra's positional-argument errors into usage errors (exit 2).
func wrapArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	if check == nil {
		return nil
	}
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print schedlab's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "schedlab %s\n", experiments.Version)
			return nil
		},
	}
}

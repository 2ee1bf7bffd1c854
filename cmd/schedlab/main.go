// Command schedlab replays cluster-scheduler traces under scheduling policies, sweeps experiment
// configurations and reproduces the figures of the CORA, JamaisVu and BPF papers.
//
// main is thin: run builds the command tree and executes it, and exit turns its error into one
// line on stderr and the exit status, so the whole CLI is testable with golden stdout/stderr.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/schedlab/schedlab/experiments"
)

func main() {
	os.Exit(exit(os.Stderr, run(os.Stdout, os.Stderr, os.Args[1:])))
}

// run executes schedlab with args, after warning on stderr about SCHEDLAB_* environment
// variables it does not read.
func run(stdout, stderr io.Writer, args []string) error {
	warnEnv(stderr, os.Environ())
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return root.Execute()
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "schedlab",
		Short: "Trace-replay benchmarking harness for cluster schedulers",
		Long: `schedlab replays cluster-scheduler traces under scheduling policies, sweeps experiment
configurations and reproduces published figures.

Exit status: 0 on success; 1 for runtime and data errors (an unreadable or invalid trace, a
workload over the limits.* keys, a failed replay); 2 for usage and configuration errors (an
unknown command, flag or configuration key, a bad or empty value).`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newRunCmd(), newPoliciesCmd(), newConfigCmd(), newPredictCmd(), newVersionCmd(), newSolverCmd(), newTraceCmd(), newSweepCmd(), newReproduceCmd(), newCompareCmd(), newTestbedCmd())
	// cobra adds these two when it executes; added now, they follow the contract too.
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			c.Run, c.RunE = nil, helpTopic
		}
	}
	groups(root)
	return root
}

// helpTopic runs `schedlab help [command...]`; an unknown topic is a usage error.
func helpTopic(c *cobra.Command, args []string) error {
	cmd, rest, err := c.Root().Find(args)
	if err != nil {
		return usageError{err}
	}
	if len(rest) > 0 {
		return unknownCommand(cmd, rest[0])
	}
	return cmd.Help()
}

// groups walks the command tree: commands with subcommands refuse an unknown one (cobra would
// print their help and exit 0), and leaf commands' positional-argument errors become usage errors.
func groups(c *cobra.Command) {
	if !c.HasSubCommands() {
		c.Args = wrapArgs(c.Args)
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		return unknownCommand(cmd, args[0])
	}
	for _, sub := range c.Commands() {
		groups(sub)
	}
}

// unknownCommand is the usage error for `schedlab <name>` when name is no subcommand of c.
func unknownCommand(c *cobra.Command, name string) error {
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return usageError{fmt.Errorf("unknown command %q for %q%s", name, c.CommandPath(),
		experiments.SuggestOr(name, names, fmt.Sprintf(" (see %s --help)", c.CommandPath())))}
}

// flagError turns cobra's flag errors into usage errors; an unknown flag gets the nearest flag
// names as suggestions.
func flagError(c *cobra.Command, err error) error {
	var unknown interface{ GetSpecifiedName() string }
	if strings.HasPrefix(err.Error(), "unknown flag: ") && errors.As(err, &unknown) {
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, "--"+f.Name) })
		return usageError{fmt.Errorf("%v%s", err, experiments.SuggestOr("--"+unknown.GetSpecifiedName(), names, fmt.Sprintf(" (see %s --help)", c.CommandPath())))}
	}
	return usageError{fmt.Errorf("%v (see %s --help)", err, c.CommandPath())}
}

// wrapArgs turns cobra's positional-argument errors into usage errors (exit 2).
func wrapArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	if check == nil {
		return nil
	}
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			path := cmd.CommandPath()
			if strings.Contains(err.Error(), path) {
				return usageError{fmt.Errorf("%w (see %s --help)", err, path)}
			}
			return usageError{fmt.Errorf("%s: %w (see %s --help)", strings.TrimPrefix(path, cmd.Root().Name()+" "), err, path)}
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

package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/policies/solver"
)

// newSolverCmd is `schedlab solver`: the in-process HiGHS LP/MILP layer
// used by solver-backed policies (CORA, JamaisVu, TetriSched).
func newSolverCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "solver",
		Short: "Check or install the in-process HiGHS LP/MILP solver (WebAssembly under wazero)",
		Long: "Solver-backed policies run HiGHS in-process: npm " + solver.NpmPackage +
			"'s highs.wasm (MIT licence) under wazero, pure Go.\n" +
			"`install` fetches and verifies highs.wasm; `check` solves a built-in LP and MILP.",
	}
	cmd.AddCommand(newSolverCheckCmd(), newSolverInstallCmd())
	return cmd
}

func cmdContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

func newSolverCheckCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Solve a built-in LP and MILP; print the HiGHS version, statuses and times",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return solver.Check(cmdContext(cmd), cmd.OutOrStdout())
		},
	}
}

func newSolverInstallCmd() *cobra.Command {
	var dest string
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Fetch npm " + solver.NpmPackage + ", verify build/highs.wasm (sha256) and install it",
		Long: "Fetch npm " + solver.NpmPackage + " (npm pack, else HTTPS from the npm registry), verify the sha256\n" +
			"of build/highs.wasm and write it atomically to DIR/highs.wasm. Idempotent: nothing is\n" +
			"fetched when the file is already there with the right sha256. The default DIR is one\n" +
			"schedlab finds from every directory: third_party/highs/ in the repository schedlab was\n" +
			"built from, else the user cache dir (e.g. ~/.cache/schedlab/highs). A --dest elsewhere\n" +
			"needs SCHEDLAB_HIGHS_WASM=DIR/highs.wasm.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			if dest == "" {
				d, err := solver.DefaultInstallDir()
				if err != nil {
					return err
				}
				dest = d
			}
			if abs, err := filepath.Abs(dest); err == nil {
				dest = abs // say where, from any directory
			}
			res, err := solver.Install(cmdContext(cmd), dest, out)
			if err != nil {
				return err
			}
			if res.AlreadyInstalled {
				fmt.Fprintf(out, "highs.wasm already installed at %s (sha256 ok); nothing to do\n", res.Path)
			} else {
				fmt.Fprintf(out, "installed %s from npm %s (licence %s, sha256 %s)\n", res.Path, solver.NpmPackage, res.License, solver.WasmSHA256)
			}
			if solver.FoundAnywhere(dest) {
				fmt.Fprintf(out, "schedlab finds it there from any directory\n")
			} else {
				fmt.Fprintf(out, "schedlab does not look in %s: set %s=%s\n", dest, solver.EnvWasm, res.Path)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dest, "dest", "", "directory to install highs.wasm into (default: third_party/highs in the repository schedlab was built from, else the user cache dir)")
	return cmd
}

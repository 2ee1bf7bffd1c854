package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/internal/datapath"
)

// addDataFlag gives cmd the --data flag: the shared data folder that data:… and
// ../shared/data/… paths in specs, configurations and --src name (datapath.Dir). Without it
// $SCHEDLAB_SHARED_DATA applies, else ../shared/data beside the repository.
func addDataFlag(cmd *cobra.Command) {
	var dir string
	cmd.Flags().StringVar(&dir, "data", "", "shared data folder for data:… and ../shared/data/… paths (default: $"+datapath.Env+", else ../shared/data beside the repository)")
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if dir != "" {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return usageError{fmt.Errorf("--data %s: not a directory", dir)}
			}
		}
		datapath.SetDir(dir) // also resets a previous command's folder (tests run many)
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

// resolveData replaces each path by the file it names, found from any directory
// (datapath.Resolve: data:… and ../shared/data/… in the shared data folder, repository
// fixtures); paths for which keep is true stay as given.
func resolveData(paths []string, keep func(string) bool) error {
	for i, p := range paths {
		if keep != nil && keep(p) {
			continue
		}
		r, err := datapath.Resolve(p)
		if err != nil {
			return err
		}
		paths[i] = r
	}
	return nil
}

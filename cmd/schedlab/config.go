package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/experiments"
)

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show configuration keys",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "keys",
		Short: "List every configuration key with its default, as a Markdown table",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprint(cmd.OutOrStdout(), KeysTable())
			return nil
		},
	})
	return cmd
}

// KeysTable renders experiments.Keys as the Markdown table README.md carries.
func KeysTable() string {
	var b strings.Builder
	b.WriteString("| key | default | meaning |\n|---|---|---|\n")
	for _, k := range experiments.Keys {
		def := fmt.Sprint(k.Default)
		switch d := k.Default.(type) {
		case string:
			if d == "" {
				def = `""`
			} else {
				def = "`" + d + "`"
			}
		case []string:
			def = "[" + strings.Join(d, ", ") + "]"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", k.Name, def, strings.ReplaceAll(k.Doc, "|", "\\|"))
	}
	b.WriteString("| `policy.params.*` | — | policy-specific settings, checked by the chosen policy (e.g. `policy.params.preempt=true` for sp) |\n")
	b.WriteString(experiments.ScopedKeyRow())
	return b.String()
}

package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/experiments"
)

// FuzzReadConfigFile: any file given to --config is read or refused as a configuration error,
// never a panic.
func FuzzReadConfigFile(f *testing.F) {
	for _, name := range []string{"two-documents.yaml", "empty-value.yaml", "trailing-separator.yaml", "alias-bomb.yaml"} {
		b, err := os.ReadFile(contract(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("engine:\n  cycle_s: 5\npolicy: {name: drf, params: {x: ~}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := readConfigFile(experiments.NewViper(), path); err != nil && !errors.Is(err, experiments.ErrConfig) {
			t.Fatalf("%q: %v is not a configuration error", data, err)
		}
	})
}

package experiments

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEDocumentsEveryKey keeps README.md's configuration table in step with Keys.
func TestREADMEDocumentsEveryKey(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, k := range Keys {
		if !strings.Contains(readme, "| `"+k.Name+"` |") {
			t.Errorf("README.md's configuration table lacks key %s", k.Name)
		}
	}
}

package external_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEShowsTheExample: the scheduler README.md shows is the example file's code, so a
// reader who copies it gets what the tests run.
func TestREADMEShowsTheExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("python/examples/smallest_first.py")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	start, end := strings.Index(s, "import os"), strings.Index(s, "\n\nif __name__")
	if start < 0 || end < start {
		t.Fatal("smallest_first.py lost its imports or its main guard")
	}
	if !strings.Contains(string(readme), "```python\n"+s[start:end]+"\n") {
		t.Error("README.md's scheduler differs from python/examples/smallest_first.py: copy the file's code into it")
	}
}

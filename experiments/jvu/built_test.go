package jvu

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/internal/testbin"
)

// claimsFile is the part of `schedlab reproduce`'s claims.json these tests read (format
// schedlab-claims, version 1: experiments/reproduce/claimsjson.go). Package reproduce imports
// this one, so its types cannot be used here.
type claimsFile struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Tally   struct {
		Counted       int `json:"counted"`
		Informational int `json:"informational"`
	} `json:"tally"`
	Targets []struct {
		ID            string   `json:"id"`
		Kind          string   `json:"kind"`
		Informational string   `json:"informational"`
		Notes         []string `json:"notes"`
		Claims        []struct {
			Text    string `json:"text"`
			Ours    string `json:"ours"`
			Test    string `json:"test"`
			Verdict string `json:"verdict"`
			Reason  string `json:"reason"`
			Counted bool   `json:"counted"`
		} `json:"claims"`
	} `json:"targets"`
}

// reproduceBuilt runs `schedlab reproduce id --label label --jv-trace src` with the schedlab
// binary of internal/testbin ($SCHEDLAB_TEST_BIN under `make test`: built without the race
// detector, so the month's replay runs at full speed) and returns its claims.json.
func reproduceBuilt(t *testing.T, id, label, src string) *claimsFile {
	t.Helper()
	bin := testbin.Schedlab(t)
	out := t.TempDir()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "reproduce", id, "--label", label, "--jv-trace", src, "--out", out)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("schedlab reproduce %s: %v\n%s", id, err, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "claims.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc claimsFile
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("claims.json: %v", err)
	}
	if doc.Format != "schedlab-claims" || doc.Version != 1 {
		t.Fatalf("claims.json is format %q version %d, want schedlab-claims 1", doc.Format, doc.Version)
	}
	for _, f := range []string{"report.md", "index.html", filepath.Join("jvu", id+".md"), filepath.Join("jvu", id+".png")} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	return &doc
}

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup() // a schedlab binary built for reproduceBuilt
	os.Exit(code)
}

package borg2019

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/testutil"
)

const job2011 = "0,,3418309,0,70s3v5qRyCO/1PCdI6fVXnrW8FU/w+5CKRSa72xgcIo=,3,IHgtoxEBuUTHNbUeVs4hzptMY4n8rZKLbZg+Jh5fNG4=,wAmgn2H74cdoMuSFwJF3NaUEaudVBTZ0/HaNZBwIpEQ=\n"

func TestDetect(t *testing.T) {
	tests := []struct {
		name, file, head string
		table            string // "" with want2019 false: not detected
		want2019         bool
		evidence         string
	}{
		{"2011 job_events part", "job_events/part-00000-of-00500.csv.gz", job2011, "", false, ""},
		{"2011 machine_events", "machine_events/part-00000-of-00001.csv", "0,5,0,HofLGzk1Or/8Ildj2+Lqv0UGGvY82NLoni8+J/Yy0RU=,0.5,0.2493\n", "", false, ""},
		{"empty", "x.csv", "", "", false, ""},
		{"binary", "x.bin", "\x00\x01\x02\xff", "", false, ""},
		{"other json", "x.json", `{"job":"a","duration":5}`, "", false, ""},
		{"other csv header", "x.csv", "task_name,instance_num,job_name\n", "", false, ""},
		{"collection_events name", "gs://bucket/collection_events-000000000001.json.gz", "", "collection_events", true, "file name"},
		{"instance_usage name", "a/instance_usage.csv", "", "instance_usage", true, "file name"},
		{"bigquery dataset path", "clusterdata-2019/a/machine_events.json", "", "machine_events", true, "clusterdata-2019"},
		{"instance event json", "part-000.json", `{"time":"0","type":0,"collection_id":"1","instance_index":3,"resource_request":{"cpus":0.02,"memory":0.01}}`, "instance_events", true, "JSON record with 2019 fields collection_id, instance_index, resource_request"},
		{"machine event json", "machine_events.json", "\n\n" + `{"time":"0","machine_id":"5","type":1,"switch_id":"s1","capacity":{"cpus":0.5,"memory":0.25}}`, "machine_events", true, "switch_id"},
		{"usage json after a blank", "usage.json", "\n" + `{"start_time":"0","end_time":"300","collection_id":"1","instance_index":0,"average_usage":{"cpus":0.01}}`, "instance_usage", true, "average_usage"},
		{"csv header dotted", "events.csv", "time,type,collection_id,instance_index,resource_request.cpus,resource_request.memory\n1,2,3,4,5,6\n", "instance_events", true, "CSV header"},
		{"csv header underscored", "events.csv", "time,type,collection_id,resource_request_cpus\n", "instance_events", true, "resource_request"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Detect(tc.file, []byte(tc.head))
			if !tc.want2019 {
				if err != nil {
					t.Fatalf("Detect = %v, want nil", err)
				}
				return
			}
			var ue *UnsupportedError
			if !errors.As(err, &ue) || !errors.Is(err, ErrUnsupported) || !errors.Is(err, errors.ErrUnsupported) {
				t.Fatalf("Detect = %v, want an *UnsupportedError", err)
			}
			if ue.File != tc.file || ue.Table != tc.table || !strings.Contains(ue.Evidence, tc.evidence) {
				t.Errorf("got file %q table %q evidence %q", ue.File, ue.Table, ue.Evidence)
			}
			msg := err.Error()
			for _, want := range []string{"borg2019: " + tc.file + ": ", "2019", "collection", "normalized compute units", "traces/google2011", "not read"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q: %s", want, msg)
				}
			}
		})
	}
}

func TestDetectFile(t *testing.T) {
	for file, table := range map[string]string{
		"testdata/instance_events_synthetic.json":         "instance_events",
		"testdata/collection_events_header_synthetic.csv": "collection_events",
		"testdata/part-000.json.gz":                       "instance_events", // gzip content, neutral name
	} {
		var ue *UnsupportedError
		if err := DetectFile(file); !errors.As(err, &ue) || ue.Table != table {
			t.Errorf("%s: DetectFile = %v, want %s", file, err, table)
		}
	}
	err := DetectFile("testdata/missing.json")
	if err == nil || errors.Is(err, ErrUnsupported) || !strings.HasPrefix(err.Error(), "borg2019: ") {
		t.Errorf("missing file: %v", err)
	}
	// A truncated gzip stream still yields its first records.
	gz, err := os.ReadFile("testdata/part-000.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	if err := Detect("cut.gz", gz[:len(gz)-20]); !errors.Is(err, ErrUnsupported) {
		t.Errorf("truncated gzip: %v", err)
	}
}

// TestShared2011NotFlagged checks that real 2011 parts and fixtures are not mistaken for 2019.
func TestShared2011NotFlagged(t *testing.T) {
	dir := testutil.SharedData(t, "google2011")
	var files []string
	for _, pat := range []string{"job_events/part-0000[0-4]-*.csv.gz", "task_events/part-0000[0-2]-*.csv.gz", "fixtures/*.csv", "*.csv", "*.txt"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no 2011 files found")
	}
	for _, f := range files {
		if err := DetectFile(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

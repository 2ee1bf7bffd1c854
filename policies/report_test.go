package policies

import "testing"

func TestReportValidate(t *testing.T) {
	ok := Column{Name: "x", Int64: []int64{1, 2}}
	tests := []struct {
		name string
		r    Report
		ok   bool
	}{
		{"a table and a doc pass", Report{Tables: []Table{{Name: "solves", Columns: []Column{ok}}}, Docs: []Doc{{Name: "admissions"}}}, true},
		{"an engine output's name is refused", Report{Tables: []Table{{Name: "jobs", Columns: []Column{ok}}}}, false},
		{"a repeated name is refused", Report{Tables: []Table{{Name: "a"}}, Docs: []Doc{{Name: "a"}}}, false},
		{"a path is refused", Report{Docs: []Doc{{Name: "../x"}}}, false},
		{"a column with two value slices is refused", Report{Tables: []Table{{Name: "a", Columns: []Column{{Name: "x", Int64: []int64{1}, Bool: []bool{true}}}}}}, false},
		{"a column without values is refused", Report{Tables: []Table{{Name: "a", Columns: []Column{{Name: "x"}}}}}, false},
		{"columns of different lengths are refused", Report{Tables: []Table{{Name: "a", Columns: []Column{ok, {Name: "y", Float64: []float64{1}}}}}}, false},
		{"a repeated column is refused", Report{Tables: []Table{{Name: "a", Columns: []Column{ok, ok}}}}, false},
		{"an empty metric name is refused", Report{Metrics: map[string]float64{"": 1}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.r.Validate(); (err == nil) != tt.ok {
				t.Errorf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

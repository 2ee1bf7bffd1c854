package calibrate

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Property is one scheduler setting of the runs: the value the configuration files set, or the
// default of the Hadoop 2.7 / Tez 0.8 release when they leave it unset.
type Property struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// properties are the settings the testbed profile reads, with the defaults the released
// yarn-default.xml, FairScheduler and tez-default give them (Hadoop 2.7.2, Tez 0.8.4).
var properties = []struct{ name, def, where string }{
	{"yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", "1000", "yarn-default.xml (Hadoop 2.7)"},
	{"yarn.scheduler.fair.assignmultiple", "false", "FairScheduler default (Hadoop 2.7): one container per node heartbeat"},
	{"yarn.scheduler.fair.update-interval-ms", "500", "FairScheduler default (Hadoop 2.7)"},
	{"yarn.scheduler.fair.preemption", "false", "FairScheduler default (Hadoop 2.7)"},
	{"maxAMShare", "0.5", "FairScheduler allocation-file default queueMaxAMShareDefault (Hadoop 2.7)"},
	{"tez.am.container.reuse.enabled", "true", "tez-default (Tez 0.8)"},
	{"tez.shuffle-vertex-manager.min-src-fraction", "0.25", "tez-default (Tez 0.8)"},
	{"tez.shuffle-vertex-manager.max-src-fraction", "0.75", "tez-default (Tez 0.8)"},
}

// ScanConfigs finds each property in the configuration files: an XML <name>/<value> pair, or
// an allocation-file element (<maxAMShare>, <queueMaxAMShareDefault>). A value written as a
// shell variable ($x) is reported as such. Unset properties keep their release default.
func ScanConfigs(paths []string) ([]Property, error) {
	var texts []string
	for _, p := range paths {
		if err := CheckNotValidation(p); err != nil {
			return nil, err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if len(b) > MaxLogBytes {
			return nil, fmt.Errorf("%s: larger than %d bytes", p, MaxLogBytes)
		}
		texts = append(texts, string(b))
	}
	var out []Property
	for _, pr := range properties {
		prop := Property{Name: pr.name, Value: pr.def, Source: "default: " + pr.where}
		var res []*regexp.Regexp
		if pr.name == "maxAMShare" {
			res = []*regexp.Regexp{regexp.MustCompile(`<(?:maxAMShare|queueMaxAMShareDefault)>\s*([^<]*?)\s*</`)}
		} else {
			res = []*regexp.Regexp{regexp.MustCompile(`<name>\s*` + regexp.QuoteMeta(pr.name) + `\s*</name>\s*<value>\s*([^<]*?)\s*</value>`)}
		}
		for i, t := range texts {
			for _, re := range res {
				if m := re.FindStringSubmatch(t); m != nil {
					prop.Value = m[1]
					prop.Source = "set in " + paths[i]
					if strings.HasPrefix(m[1], "$") {
						prop.Source += " from a script variable"
					}
				}
			}
		}
		out = append(out, prop)
	}
	return out, nil
}

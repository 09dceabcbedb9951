package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/schedule"
)

// segmentSet is what the result files of a run split in execution segments say about their parts.
type segmentSet struct {
	parts   []schedule.Segment
	missing []string // the parts of the sequence no file ran, as ranges
}

// checkSegments refuses to merge result files of execution segments that are not parts of one run:
// a file with a segment and one without, files of different plans (anything but the segment
// differs), of different sequences, or whose segments overlap (the same segment twice included).
// It returns nil when no file has a segment, and otherwise the parts that no file ran.
func checkSegments(files []string) (*segmentSet, error) {
	var set segmentSet
	var firstPlan []byte
	var firstSeq string
	withSeg := 0
	for i, path := range files {
		_, p, err := readHeader(path)
		if err != nil {
			return nil, err
		}
		seg, _, ok, err := p.Load.Part()
		if err != nil {
			return nil, usagef("--merge: %s: %v", path, strings.TrimPrefix(err.Error(), "plan: "))
		}
		if ok {
			withSeg++
		}
		if withSeg != 0 && withSeg != i+1 {
			return nil, usagef("--merge: %s and %s: one ran an execution segment (--segment) and the other the whole plan; merge the segments of one run", files[0], path)
		}
		if !ok {
			continue
		}
		whole, err := planWithoutSegment(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if i > 0 && !bytes.Equal(whole, firstPlan) {
			return nil, usagef("--merge: %s ran another plan than %s (beyond its segment): the segments of one run share their plan", path, files[0])
		}
		for k, o := range set.parts {
			if seg.Overlaps(o) {
				if seg.From == o.From && seg.To == o.To {
					return nil, usagef("--merge: %s and %s ran the same segment, %s: each part of a run is merged once", files[k], path, seg)
				}
				return nil, usagef("--merge: the segments of %s (%s) and %s (%s) overlap: each part of a run is merged once", files[k], o, path, seg)
			}
		}
		if i == 0 {
			firstPlan, firstSeq = whole, seg.SequenceString()
		} else if s := seg.SequenceString(); s != firstSeq {
			return nil, usagef("--merge: %s splits the run by the sequence %s, %s by %s: give every generator the same --segment-sequence", path, s, files[0], firstSeq)
		}
		set.parts = append(set.parts, seg)
	}
	if withSeg == 0 {
		return nil, nil
	}
	set.missing = missingParts(set.parts)
	return &set, nil
}

// planWithoutSegment encodes p normalised and without its segment: the whole plan every part ran.
func planWithoutSegment(p plan.Plan) ([]byte, error) {
	p.Load.Segment, p.Load.SegmentSequence = "", ""
	return json.Marshal(p.Normalized())
}

// missingParts returns the parts of the sequence of parts (all of one sequence) that none covers.
func missingParts(parts []schedule.Segment) []string {
	seq := parts[0].Sequence
	covered := map[schedule.Frac]bool{}
	for _, p := range parts {
		covered[p.From] = true
	}
	var out []string
	for j := 1; j < len(seq); j++ {
		if !covered[seq[j-1]] {
			out = append(out, schedule.Segment{From: seq[j-1], To: seq[j]}.String())
		}
	}
	sort.Strings(out)
	return out
}

// note returns what a merged report says of the segments: how many generators ran, and which
// parts are missing.
func (s *segmentSet) note() string {
	if len(s.missing) == 0 {
		return fmt.Sprintf("%d generators ran every segment of the plan", len(s.parts))
	}
	return fmt.Sprintf("%d generators ran; segments missing: %s — the merged figures cover only part of the plan, its intended count too", len(s.parts), strings.Join(s.missing, ", "))
}

package floor

import "testing"

func TestFaultKind(t *testing.T) {
	tests := []struct {
		code, family string
		want         Kind
	}{
		{"misread", familyBaccarat, KindMisread},
		{"out-of-turn", familyBaccarat, KindTableau},
		{"out-of-turn", familyBlackjack, KindOutOfTurn},
		{"out-of-turn", "", KindOutOfTurn},
		{"foreign-card", familyPoker, KindForeign},
		{"deck", familyTrente, KindProcedure},
		{"accounting", familyBaccarat, KindProcedure},
		{"cut-card-position", familyBaccarat, KindProcedure},
		{"card-while-held", familyBaccarat, KindProcedure},
		{"shoe-link", familyBaccarat, KindDevice},
		{"shoe-alarm", familyBaccarat, KindDevice},
		{"shuffler-link", familyBaccarat, KindDevice},
		{"jam", familyBaccarat, KindDevice},
		{"door-open", familyBaccarat, KindDevice},
		{"misfeed", familyBaccarat, KindDevice},
		{"count-mismatch", familyBaccarat, KindDevice},
		{"device", familyBaccarat, KindDevice},
		{"something-new", familyBaccarat, KindProcedure},
	}
	for _, tc := range tests {
		if got := faultKind(tc.code, tc.family); got != tc.want {
			t.Errorf("faultKind(%q, %q) = %s, want %s", tc.code, tc.family, got, tc.want)
		}
	}
	for _, tc := range []struct{ code, problem, want string }{
		{"jam", "shuffler: the shuffler jammed after 40 cards", "shuffler"},
		{"shoe-alarm", "shoe: E7 Shoe Jam", "reading shoe"},
		{"device", "shuffler: shuffler: no answer", "shuffler"},
		{"device", "somewhere", "device"},
	} {
		if got := deviceOf(tc.code, tc.problem); got != tc.want {
			t.Errorf("deviceOf(%q, %q) = %q, want %q", tc.code, tc.problem, got, tc.want)
		}
	}
}

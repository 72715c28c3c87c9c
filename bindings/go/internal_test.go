package rocksfilter

import "testing"

func TestVersion(t *testing.T) {
	if v := Version(); v != headerVersion {
		t.Errorf("Version() = %q, header says %q", v, headerVersion)
	}
}

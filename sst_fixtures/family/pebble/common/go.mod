module rocksfilter.example/family/pebble/common

go 1.22

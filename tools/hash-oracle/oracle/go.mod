module unstuck.local/hashoracle

go 1.21

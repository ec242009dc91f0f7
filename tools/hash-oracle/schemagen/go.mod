module unstuck.local/schemagen

go 1.21

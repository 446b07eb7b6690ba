module symlazy/go

go 1.19

# Convenience targets for those who have make; ./dev is the real entry point.
.PHONY: simulate test bench floor vmtest
simulate:
	./dev simulate
test:
	./dev test
bench:
	./dev bench
floor:
	./dev floor
vmtest:
	./dev vmtest

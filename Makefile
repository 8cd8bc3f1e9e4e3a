# Convenience targets for those who have make; ./dev is the real entry point.
.PHONY: simulate test bench vmtest
simulate:
	./dev simulate
test:
	./dev test
bench:
	./dev bench
vmtest:
	./dev vmtest

# lit configuration for onnxc's FileCheck suites (dialect, import, passes,
# codegen, errors). Substitutions:
#   %onnxc, %onnxc-opt   the tools under test
#   %make-model          ONNX text (lines starting with '#!' in the test) -> .onnx
#   %python              Debian's python3 (has onnx)
import os
import lit.formats

config.name = "onnxc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".onnxtxt", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.onnxc_binary_dir, "test", "lit")
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "make_model.py", "Inputs"]

tools = config.onnxc_tools_dir
config.substitutions.append(("%onnxc-opt", os.path.join(tools, "onnxc-opt")))
config.substitutions.append(("%onnxc", os.path.join(tools, "onnxc")))
config.substitutions.append(("%python", "/usr/bin/python3"))
config.substitutions.append(
    ("%make-model", "/usr/bin/python3 " + os.path.join(config.test_source_root, "make_model.py")))
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
# onnxc's build cache (Toolchain.cpp's buildCacheDir) when the caller names
# one (scripts/test.sh: one of the run's own): lit passes no HOME, so
# without it every calibration and `onnxc run` here compiles its library
# again (errors/quantize.test, which calibrates the same model in many of
# its lines: 42 s, 20 s with the cache).
if "ONNXC_CACHE_DIR" in os.environ:
    config.environment["ONNXC_CACHE_DIR"] = os.environ["ONNXC_CACHE_DIR"]

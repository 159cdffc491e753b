#!/usr/bin/python3
"""Export a randomly initialised torchvision AlexNet (~244 MB) to ONNX for onnxview's load benchmarks."""

# Usage: make-alexnet.py OUT.onnx
#
# Nothing is downloaded: the weights are random (weights=None) with a fixed
# seed, so every run writes the same bytes.

import sys
import warnings

try:
    import torch
    import torchvision
except ImportError as e:
    print("make-alexnet.py: %s; cannot build the benchmark model" % e, file=sys.stderr)
    sys.exit(77)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-alexnet.py OUT.onnx")
    out = sys.argv[1]

    warnings.filterwarnings("ignore")
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(0)
    net = torchvision.models.alexnet(weights=None).eval()
    torch.onnx.export(net, torch.randn(1, 3, 224, 224), out, opset_version=13,
                      do_constant_folding=True, export_params=True,
                      input_names=["input"], output_names=["output"])
    print(out)


if __name__ == "__main__":
    main()

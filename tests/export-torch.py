#!/usr/bin/python3
"""Export real PyTorch models (ResNet-18, a Transformer layer, MobileNetV2) to ONNX for onnxview's tests."""

# Usage: export-torch.py OUTDIR
#
# Weights are random (fixed seed, nothing is downloaded) and the exporter is
# run on the CPU in eval mode, so each run writes the same bytes.  Prints one
# line per file written.  Exits 77 (the automake "skipped" status) when torch
# is not installed.

import os
import sys
import warnings

try:
    import torch
    from torch import nn
except ImportError:
    print("export-torch.py: PyTorch is not installed; skipping", file=sys.stderr)
    sys.exit(77)

try:
    import torchvision
except ImportError:
    torchvision = None

OPSET = 13


# --------------------------------------------------------------------------
# Fallback ResNet-18, used only when torchvision is missing.  Same layout as
# torchvision.models.resnet18.
# --------------------------------------------------------------------------

class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                            nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class ResNet18(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        layers, cin = [], 64
        for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
            layers.append(nn.Sequential(BasicBlock(cin, cout, stride),
                                        BasicBlock(cout, cout, 1)))
            cin = cout
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


# --------------------------------------------------------------------------

def export(net, example, path, input_names, output_names):
    """Export `net` deterministically to `path` and report it."""
    net.eval()
    # Export with autograd enabled: under torch.no_grad() an eval-mode
    # TransformerEncoderLayer takes its fused "fast path"
    # (aten::_transformer_encoder_layer_fwd), which has no ONNX symbolic.
    torch.onnx.export(net, example, path, opset_version=OPSET,
                      do_constant_folding=True, export_params=True,
                      input_names=input_names, output_names=output_names)
    print(path)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: export-torch.py OUTDIR")
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)

    # Keep the output to one line per file: silence exporter warnings.
    warnings.filterwarnings("ignore")
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)

    torch.manual_seed(0)
    net = torchvision.models.resnet18(weights=None) if torchvision else ResNet18()
    export(net, torch.randn(1, 3, 224, 224), os.path.join(outdir, "resnet18.onnx"),
           ["input"], ["output"])

    torch.manual_seed(0)
    net = nn.TransformerEncoderLayer(d_model=64, nhead=4, batch_first=True)
    export(net, torch.randn(2, 10, 64), os.path.join(outdir, "transformer.onnx"),
           ["src"], ["output"])

    if torchvision:
        torch.manual_seed(0)
        net = torchvision.models.mobilenet_v2(weights=None)
        export(net, torch.randn(1, 3, 224, 224), os.path.join(outdir, "mobilenetv2.onnx"),
               ["input"], ["output"])
    else:
        print("export-torch.py: torchvision is not installed; mobilenetv2.onnx skipped",
              file=sys.stderr)


if __name__ == "__main__":
    main()

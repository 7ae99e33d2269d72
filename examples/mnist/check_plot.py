#!/usr/bin/env python3
"""Runs `mnist --plot` for 2 epochs with a log interval of 25 batches and checks the SVG:
well-formed XML, both axes of both panels labelled, 10 loss points (125 batches per epoch on
the bundled sample: 5 per epoch) and 2 accuracy points, all inside the picture.

    check_plot.py MNIST_BINARY OUT.svg
"""
import subprocess
import sys
import xml.etree.ElementTree as ET

NS = {"svg": "http://www.w3.org/2000/svg"}


def main():
    binary, out = sys.argv[1], sys.argv[2]
    subprocess.run([binary, "--epochs", "2", "--log-interval", "25", "--device", "cpu", "--plot", out],
                   check=True, stdout=subprocess.DEVNULL)
    root = ET.parse(out).getroot()
    width, height = float(root.get("width")), float(root.get("height"))
    counts = {}
    for line in root.iter("{http://www.w3.org/2000/svg}polyline"):
        points = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
        for x, y in points:
            assert 0 <= x <= width and 0 <= y <= height, f"{line.get('id')}: point {x},{y} outside the picture"
        counts[line.get("id")] = len(points)
    assert counts == {"loss": 10, "accuracy": 2}, counts
    labels = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") in ("xlabel", "ylabel")]
    assert labels.count("epoch") == 2 and "accuracy (%)" in labels and any("loss" in l for l in labels), labels
    print(f"{out}: loss points {counts['loss']}, accuracy points {counts['accuracy']}, labels {labels}")


if __name__ == "__main__":
    main()

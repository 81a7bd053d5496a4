#!/usr/bin/env node
import '../dist/cli-bundle/index.js';

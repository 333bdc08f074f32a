// replaced by the real implementation

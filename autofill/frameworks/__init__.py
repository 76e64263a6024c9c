"""Framework datapoints: the catalogue (ESRS, IFRS S2, GRI, TCFD, CDP and a workspace's own codes),
the mapping of questions to datapoints, and the coverage of a questionnaire."""
